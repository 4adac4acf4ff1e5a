import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { Principal } from '../auth/principal';
import { Broadcast } from '../common/redis/broadcast';

const TTL_MS = 10_000;
const MAX_ENTRIES = 10_000;
/** Carries the hash of each revoked token to every instance. */
const REVOKED_CHANNEL = 'auth:token-revoked';

/**
 * Recently authenticated tokens, by hash, so a busy client costs one token
 * query per 10 seconds instead of one per request (at most 10,000 tokens,
 * the least recently used dropped first). Revoking a token evicts it here
 * and, through the broadcast (Redis pub/sub with REDIS_URL), on every other
 * instance at once. While the broadcast cannot promise delivery (Redis
 * unreachable), the cache is bypassed and every request reads the database;
 * when it is back, everything cached before is dropped (docs/api-rules.md §8).
 */
@Injectable()
export class TokenCache {
  private readonly entries = new LRUCache<string, Principal>({ max: MAX_ENTRIES, ttl: TTL_MS });

  constructor(private readonly broadcast: Broadcast) {
    broadcast.listen(REVOKED_CHANNEL, {
      message: (tokenHash) => this.entries.delete(tokenHash),
      resync: () => this.entries.clear(),
    });
  }

  get(tokenHash: string): Principal | undefined {
    return this.broadcast.reliable ? this.entries.get(tokenHash) : undefined;
  }

  set(tokenHash: string, principal: Principal): void {
    if (this.broadcast.reliable) this.entries.set(tokenHash, principal);
  }

  /** Forgets a revoked token here at once, and tells every other instance. */
  async evict(tokenHash: string): Promise<void> {
    this.entries.delete(tokenHash);
    await this.broadcast.publish(REVOKED_CHANNEL, tokenHash);
  }
}
