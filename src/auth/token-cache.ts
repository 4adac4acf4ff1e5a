import { Principal } from './principal';

const TTL_MS = 10_000;
const MAX_ENTRIES = 10_000;

/**
 * Recently authenticated tokens, by hash, so a busy client costs one token
 * query per 10 seconds instead of one per request. Revoking a token evicts it
 * here at once; another instance of the service notices within the TTL.
 */
export class TokenCache {
  private readonly entries = new Map<string, { principal: Principal; expiresAt: number }>();

  get(tokenHash: string, now = Date.now()): Principal | undefined {
    const entry = this.entries.get(tokenHash);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.entries.delete(tokenHash);
      return undefined;
    }
    return entry.principal;
  }

  set(tokenHash: string, principal: Principal, now = Date.now()): void {
    if (this.entries.size >= MAX_ENTRIES) {
      // Maps iterate in insertion order: drop the oldest entry.
      this.entries.delete(this.entries.keys().next().value as string);
    }
    this.entries.set(tokenHash, { principal, expiresAt: now + TTL_MS });
  }

  evict(tokenHash: string): void {
    this.entries.delete(tokenHash);
  }
}
