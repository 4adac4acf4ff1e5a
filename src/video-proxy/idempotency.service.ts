import { BadRequestException, ConflictException, Injectable, UnprocessableEntityException } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { TransactionRunner } from '../database/transaction-runner';
import { IdempotencyKeyEntity } from './entities/idempotency-key.entity';

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

/**
 * Idempotency-Key handling, stored in the database so it holds across
 * restarts and instances: the same key and body from the same user within
 * 24 h replays the first reply; a different body is 422; while the first
 * request is still running, 409.
 */
@Injectable()
export class IdempotencyService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly tx: TransactionRunner,
  ) {}

  static validateKey(key: string): void {
    if (!VALID_KEY.test(key)) {
      throw new BadRequestException('Idempotency-Key must be 1 to 255 visible ASCII characters');
    }
  }

  /** The stored reply when this is a replay; otherwise claims the key (in flight) and returns undefined. */
  claim(userId: string, key: string, hash: string): Promise<Record<string, unknown> | undefined> {
    return this.tx.run(async (manager) => {
      const existing = await this.find(manager, userId, key);
      if (existing && existing.createdAt.getTime() > Date.now() - KEY_LIFETIME_MS) {
        if (existing.requestHash !== hash) {
          throw new UnprocessableEntityException('this Idempotency-Key was already used with a different request body');
        }
        if (existing.state === 'in_flight' || !existing.reply) {
          throw new ConflictException('a request with this Idempotency-Key is still in progress');
        }
        return existing.reply;
      }
      if (existing) {
        await manager.delete(IdempotencyKeyEntity, { id: existing.id });
      }
      await manager.insert(IdempotencyKeyEntity, {
        id: randomUUID(),
        userId,
        key,
        requestHash: hash,
        state: 'in_flight',
        reply: null,
        createdAt: new Date(),
      });
      return undefined;
    });
  }

  async complete(userId: string, key: string, reply: object): Promise<void> {
    await this.tx.run((manager) =>
      manager.update(IdempotencyKeyEntity, { userId, key }, { state: 'done', reply: { ...reply } }),
    );
  }

  /** Frees a key whose request failed, so the client may retry with it. */
  async release(userId: string, key: string): Promise<void> {
    await this.tx.run((manager) => manager.delete(IdempotencyKeyEntity, { userId, key, state: 'in_flight' }));
  }

  /**
   * Frees the key of a request whose process died (its reservation released
   * by the recovery sweep), in the sweep's transaction, so a retry runs anew.
   */
  async releaseInterrupted(manager: EntityManager, userId: string, key: string): Promise<void> {
    await manager.delete(IdempotencyKeyEntity, { userId, key, state: 'in_flight' });
  }

  private find(manager: EntityManager, userId: string, key: string) {
    return manager.findOne(IdempotencyKeyEntity, { where: { userId, key } });
  }
}
