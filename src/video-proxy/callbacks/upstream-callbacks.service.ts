import { BadRequestException, ConflictException, HttpException, Injectable, Logger, UnauthorizedException } from '@nestjs/common';
import { IncomingMessage } from 'node:http';
import { readJsonBody } from '../../common/http/json-body-reader';
import { findUnsafeInput } from '../../common/validation/validation.pipe';
import { TransactionRunner } from '../../database/transaction-runner';
import { parseTaskStatus } from '../upstream/upstream-protocol';
import { UpstreamTarget } from '../upstream/upstream-target';
import { VIDEO_BODY_LIMITS } from '../video-body-limit';
import { VideoTasksService } from '../video-tasks.service';
import { MAX_CLOCK_SKEW_MS, verifyUpstreamSignature } from './upstream-signature';
import { UpstreamCallbackUrl } from './upstream-callback-url';
import { UpstreamNoncesRepository } from './upstream-nonces.repository';

export interface IncomingCallback {
  method: string;
  query: Record<string, string>;
  headers: Record<string, string | undefined>;
  /** The request, its body still unread: it is read only once the callback is known to be the upstream's. */
  body: IncomingMessage;
}

/** A callback request as its signature is checked: each query value and each header as one string. */
export function incomingCallbackOf(req: IncomingMessage, query: Record<string, unknown>): IncomingCallback {
  return {
    method: req.method ?? '',
    query: Object.fromEntries(Object.entries(query).map(([name, value]) => [name, typeof value === 'string' ? value : JSON.stringify(value)])),
    headers: Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(',') : value])),
    body: req,
  };
}

const isClientError = (error: unknown): boolean => error instanceof HttpException && error.getStatus() < 500;

/** Nonces are kept a little longer than a callback can be fresh, which is all a replay check needs. */
const NONCE_RETENTION_MS = 2 * MAX_CLOCK_SKEW_MS;

@Injectable()
export class UpstreamCallbacksService {
  private readonly logger = new Logger(UpstreamCallbacksService.name);

  constructor(
    private readonly target: UpstreamTarget,
    private readonly callbackUrl: UpstreamCallbackUrl,
    private readonly tasks: VideoTasksService,
    private readonly nonces: UpstreamNoncesRepository,
    private readonly tx: TransactionRunner,
  ) {}

  /**
   * A task change reported by the upstream: 401 unless signed with the
   * upstream key, fresh (Date within 5 minutes) and not replayed (nonce not
   * taken by another callback, one being applied or applied); then applied
   * like a poll result (forward-only, idempotent), or kept until its task is
   * stored. A callback that fails to apply on this service's side gives its
   * nonce back.
   *
   * The signature covers no byte of the body, so it is checked first: a
   * stranger's callback is refused without its body being read, however
   * large it says it is. Only the upstream's own callbacks are read, up to
   * what a status update echoing a maximal create request needs.
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
    const nonce = callback.headers['x-request-nonce'] ?? '';
    await this.rememberNonce(nonce);
    try {
      await this.apply(callback.body);
    } catch (error) {
      // Not applied through no fault of its own (the database failing, the connection cut mid-body): the upstream's
      // retry under this nonce is no replay. A body this service refused keeps its nonce: the same request is refused.
      if (!isClientError(error) || (callback.body.destroyed && !callback.body.complete)) {
        await this.tx
          .run((manager) => this.nonces.delete(manager, nonce))
          .catch((forgetError: unknown) => this.logger.error({ err: forgetError }, 'could not forget the nonce of an upstream callback not applied'));
      }
      throw error;
    }
  }

  /** Reads the callback's body and applies the task status it reports. */
  private async apply(request: IncomingMessage): Promise<void> {
    const body = await readJsonBody(request, VIDEO_BODY_LIMITS);
    const unsafe = findUnsafeInput(body, '');
    if (unsafe) {
      throw new BadRequestException(unsafe);
    }
    const status = parseTaskStatus(body);
    if (!status) {
      throw new BadRequestException('callback body is not a task status ({id, state, err_code, creations})');
    }
    if ((await this.tasks.receiveUpstreamStatus(status)) === 'kept') {
      this.logger.warn({ taskId: status.taskId }, 'upstream callback for a task not stored yet: kept until it is');
    }
  }

  private async rememberNonce(nonce: string): Promise<void> {
    if (nonce.length > 128) throw new UnauthorizedException('upstream callback refused: nonce too long');
    try {
      await this.tx.run(async (manager) => {
        if (await this.nonces.isKnown(manager, nonce)) {
          throw new UnauthorizedException('upstream callback refused: replayed nonce');
        }
        await this.nonces.deleteReceivedBefore(manager, new Date(Date.now() - NONCE_RETENTION_MS));
        await this.nonces.insert(manager, nonce, new Date());
      });
    } catch (error) {
      // Two deliveries of one nonce at once: the second loses the insert race.
      if (error instanceof ConflictException) throw new UnauthorizedException('upstream callback refused: replayed nonce');
      throw error;
    }
  }
}
