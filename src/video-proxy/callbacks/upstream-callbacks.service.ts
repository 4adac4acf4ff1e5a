import { BadRequestException, ConflictException, Injectable, Logger, UnauthorizedException } from '@nestjs/common';
import { LessThan } from 'typeorm';
import { TransactionRunner } from '../../database/transaction-runner';
import { UpstreamNonceEntity } from '../entities/upstream-nonce.entity';
import { parseTaskStatus } from '../upstream/upstream-protocol';
import { UpstreamTarget } from '../upstream/upstream-target';
import { VideoTasksService } from '../video-tasks.service';
import { MAX_CLOCK_SKEW_MS, verifyUpstreamSignature } from './upstream-signature';
import { UpstreamCallbackUrl } from './upstream-callback-url';

export interface IncomingCallback {
  method: string;
  query: Record<string, string>;
  headers: Record<string, string | undefined>;
  body: unknown;
}

/** Nonces are kept a little longer than a callback can be fresh, which is all a replay check needs. */
const NONCE_RETENTION_MS = 2 * MAX_CLOCK_SKEW_MS;

@Injectable()
export class UpstreamCallbacksService {
  private readonly logger = new Logger(UpstreamCallbacksService.name);

  constructor(
    private readonly target: UpstreamTarget,
    private readonly callbackUrl: UpstreamCallbackUrl,
    private readonly tasks: VideoTasksService,
    private readonly tx: TransactionRunner,
  ) {}

  /**
   * A task change reported by the upstream: 401 unless signed with the
   * upstream key, fresh (Date within 5 minutes) and not replayed (nonce never
   * seen); then applied like a poll result (forward-only, idempotent).
   */
  async receive(callback: IncomingCallback): Promise<void> {
    const problem = verifyUpstreamSignature(
      this.target.apiKey,
      callback.method,
      this.callbackUrl.signedPath,
      callback.query,
      callback.headers,
    );
    if (problem) {
      throw new UnauthorizedException(`upstream callback refused: ${problem}`);
    }
    await this.rememberNonce(callback.headers['x-request-nonce'] ?? '');
    const status = parseTaskStatus(callback.body);
    if (!status) {
      throw new BadRequestException('callback body is not a task status ({id, state, err_code, creations})');
    }
    const outcome = await this.tasks.applyUpstreamStatus(status);
    if (outcome === 'unknown-task') {
      this.logger.warn({ taskId: status.taskId }, 'upstream callback for an unknown task ignored');
    }
  }

  private async rememberNonce(nonce: string): Promise<void> {
    if (nonce.length > 128) throw new UnauthorizedException('upstream callback refused: nonce too long');
    try {
      await this.tx.run(async (manager) => {
        if (await manager.findOne(UpstreamNonceEntity, { where: { nonce } })) {
          throw new UnauthorizedException('upstream callback refused: replayed nonce');
        }
        await manager.delete(UpstreamNonceEntity, { receivedAt: LessThan(new Date(Date.now() - NONCE_RETENTION_MS)) });
        await manager.insert(UpstreamNonceEntity, { nonce, receivedAt: new Date() });
      });
    } catch (error) {
      // Two deliveries of one nonce at once: the second loses the insert race.
      if (error instanceof ConflictException) throw new UnauthorizedException('upstream callback refused: replayed nonce');
      throw error;
    }
  }
}
