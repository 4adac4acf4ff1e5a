import {
  BadRequestException,
  ConflictException,
  HttpException,
  Injectable,
  Logger,
  UnprocessableEntityException,
} from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { TransactionRunner } from '../database/transaction-runner';
import { IdempotencyKeyEntity } from './entities/idempotency-key.entity';
import { IdempotencyKeysRepository } from './idempotency-keys.repository';
import { VideoTasksRepository } from './video-tasks.repository';

const KEY_LIFETIME_MS = 24 * 60 * 60 * 1000;
const VALID_KEY = /^[\x21-\x7e]{1,255}$/;

/** JSON with object keys sorted, so equal requests hash equally whatever their key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, inner]) => inner !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonicalJson(inner)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function requestHash(request: object): string {
  return createHash('sha256').update(canonicalJson(request)).digest('hex');
}

/** What claiming a key gave: a reply to replay, or the claim this request now holds with what was taken alongside it. */
export type IdempotencyClaim<Held> = { replay: Record<string, unknown> } | { claimId: string; held: Held };

/**
 * Idempotency-Key handling, stored in the database so it holds across
 * restarts and instances: the same key and body from the same user within
 * 24 h replays the first reply; a different body is 422; while the first
 * request is still running, 409.
 *
 * Once the upstream has created a task, a retry must never create another:
 * the task row names the claim it was created under (stored in the same
 * transaction as the task and its charge), so a claim whose reply could not
 * be recorded still replays that task. The upstream's refusal of the request
 * is replayed too; a claim is freed only by another failure before the
 * upstream accepted (no credit, the upstream busy, down or silent).
 *
 * A claim starts in the transaction that reserves its credits, and the one
 * that closes the reservation frees the claim, keeps its outcome, or stores
 * the task that names it (the settlement). So a claim in flight has its
 * reservation open or its task stored: if the process dies, the recovery
 * sweep that releases the reservation frees the key with it (docs/api-rules.md §8).
 */
@Injectable()
export class IdempotencyService {
  private readonly logger = new Logger(IdempotencyService.name);

  constructor(
    private readonly tx: TransactionRunner,
    private readonly keys: IdempotencyKeysRepository,
    private readonly tasks: VideoTasksRepository,
  ) {}

  static validateKey(key: string): void {
    if (!VALID_KEY.test(key)) {
      throw new BadRequestException('Idempotency-Key must be 1 to 255 visible ASCII characters');
    }
  }

  /**
   * The reply to replay when the key was used before; otherwise claims the
   * key (in flight) and runs `holdWith` (the credit reservation) in the same
   * transaction: a failure there (402) leaves the key unclaimed. A
   * concurrent request that claimed it first is found on the second run, so
   * this one is told about the key (in progress, or used with another body),
   * not a generic conflict.
   */
  claim<Held>(userId: string, key: string, hash: string, holdWith: (manager: EntityManager) => Promise<Held>): Promise<IdempotencyClaim<Held>> {
    return this.tx.runCreatingIfMissing(async (manager) => {
      const existing = await this.keys.find(manager, userId, key);
      if (existing && existing.createdAt.getTime() > Date.now() - KEY_LIFETIME_MS) {
        if (existing.requestHash !== hash) {
          throw new UnprocessableEntityException('this Idempotency-Key was already used with a different request body');
        }
        return { replay: await this.outcomeOf(manager, existing) };
      }
      if (existing) {
        await this.keys.delete(manager, existing.id);
      }
      const claimId = randomUUID();
      await this.keys.insertInFlight(manager, { id: claimId, userId, key, requestHash: hash, createdAt: new Date() });
      return { claimId, held: await holdWith(manager) };
    });
  }

  /**
   * Records the reply, for replays. Best effort: the task row already names
   * this claim, so if this write fails a retry still finds the task (and
   * the caller, whose task exists and is paid for, still gets its reply).
   */
  async complete(claimId: string, reply: object): Promise<void> {
    try {
      await this.tx.run((manager) => this.keys.recordOutcome(manager, claimId, 'done', reply));
    } catch (error) {
      this.logger.warn({ err: error, claimId }, 'could not record an Idempotency-Key reply; a retry replays it from the task');
    }
  }

  /**
   * Records, in the caller's transaction (the one that releases the
   * reservation), a failure that a retry must get again rather than run anew:
   * the upstream created a task that could not be recorded (a retry would
   * create a second one), or it refused the request (it would refuse it again).
   */
  async failWithin(manager: EntityManager, claimId: string, error: HttpException): Promise<void> {
    await this.keys.recordOutcome(manager, claimId, 'failed', { statusCode: error.getStatus(), message: error.message });
  }

  /**
   * Frees the key of a request whose process died (its reservation released
   * by the recovery sweep), in the sweep's transaction, so a retry runs anew.
   */
  async releaseInterrupted(manager: EntityManager, userId: string, key: string): Promise<void> {
    await this.keys.deleteInFlight(manager, { userId, key });
  }

  /** Frees, in the caller's transaction, a key whose request failed before the upstream accepted it, so the client may retry with it. */
  async releaseWithin(manager: EntityManager, claimId: string): Promise<void> {
    await this.keys.deleteInFlight(manager, { id: claimId });
  }

  /** What a repeated request gets: the recorded reply or error, the task created under the claim, or 409. */
  private async outcomeOf(manager: EntityManager, claim: IdempotencyKeyEntity): Promise<Record<string, unknown>> {
    if (claim.state === 'done' && claim.reply) {
      return claim.reply;
    }
    if (claim.state === 'failed' && claim.reply) {
      throw new HttpException(String(claim.reply.message), Number(claim.reply.statusCode));
    }
    const task = await this.tasks.findByIdempotencyClaim(manager, claim.id);
    if (task) {
      return task.reply;
    }
    throw new ConflictException('a request with this Idempotency-Key is still in progress');
  }
}
