import { Injectable } from '@nestjs/common';
import { Broadcast } from '../common/redis/broadcast';
import { Principal } from './principal';

const TTL_MS = 10_000;
const MAX_ENTRIES = 10_000;
/** Carries the hash of each revoked token to every instance. */
const REVOKED_CHANNEL = 'auth:token-revoked';

/**
 * Recently authenticated tokens, by hash, so a busy client costs one token
 * query per 10 seconds instead of one per request. Revoking a token evicts it
 * here and, through the broadcast (Redis pub/sub with REDIS_URL), on every
 * other instance at once. While the broadcast cannot promise delivery (Redis
 * unreachable), the cache is bypassed and every request reads the database;
 * when it is back, everything cached before is dropped (docs/api-rules.md §8).
 */
@Injectable()
export class TokenCache {
  private readonly entries = new Map<string, { principal: Principal; expiresAt: number }>();

  constructor(private readonly broadcast: Broadcast) {
    broadcast.listen(REVOKED_CHANNEL, {
      message: (tokenHash) => this.entries.delete(tokenHash),
      resync: () => this.entries.clear(),
    });
  }

  get(tokenHash: string, now = Date.now()): Principal | undefined {
    if (!this.broadcast.reliable) return undefined;
    const entry = this.entries.get(tokenHash);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.entries.delete(tokenHash);
      return undefined;
    }
    return entry.principal;
  }

  set(tokenHash: string, principal: Principal, now = Date.now()): void {
    if (!this.broadcast.reliable) return;
    if (this.entries.size >= MAX_ENTRIES) {
      // Maps iterate in insertion order: drop the oldest entry.
      this.entries.delete(this.entries.keys().next().value as string);
    }
    this.entries.set(tokenHash, { principal, expiresAt: now + TTL_MS });
  }

  /** Forgets a revoked token here at once, and tells every other instance. */
  async evict(tokenHash: string): Promise<void> {
    this.entries.delete(tokenHash);
    await this.broadcast.publish(REVOKED_CHANNEL, tokenHash);
  }
}
