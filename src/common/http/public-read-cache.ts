import { Inject, Injectable } from '@nestjs/common';
import { InjectMetric } from '@willsoto/nestjs-prometheus';
import { LRUCache } from 'lru-cache';
import { Counter } from 'prom-client';
import { appConfig, AppConfig } from '../../config/config.module';
import { Broadcast } from '../redis/broadcast';

/** Carries "public content changed" to every instance (Redis pub/sub with REDIS_URL). */
const CHANGED_CHANNEL = 'read-cache:changed';
/** The most memory the serialized replies may take (a catalog page of 1,000 is about 1.4 MB). */
const MAX_BYTES = 64 * 1024 * 1024;

export const READ_CACHE_HITS = 'registry_read_cache_hits_total';
export const READ_CACHE_MISSES = 'registry_read_cache_misses_total';

/** Where a request started reading, to be handed back with what it read (see store). */
export type CacheGeneration = number;

/**
 * Serialized replies of anonymous public reads (the catalog, nodes,
 * versions, publishers), by request, so a hot read is served without the
 * database. Every write of public content empties it here and, through the
 * broadcast, on every other instance within moments (docs/api-rules.md §7: visible at
 * once here, within 1 s elsewhere); counters that change without such a
 * write (downloads) are as old as an entry's time to live at most. While the
 * broadcast cannot promise delivery (Redis unreachable) nothing is served
 * from it or stored, and when it is back everything stored before is dropped.
 *
 * A reply read before a write committed must not be stored after the write
 * emptied the cache: each read takes the generation when it starts, and a
 * reply is stored only while the generation is still that one.
 */
@Injectable()
export class PublicReadCache {
  private readonly replies = new LRUCache<string, string>({ maxSize: MAX_BYTES, sizeCalculation: (text) => Math.max(1, text.length) });
  private currentGeneration: CacheGeneration = 0;
  readonly defaultTtlMs: number;

  constructor(
    private readonly broadcast: Broadcast,
    @Inject(appConfig.KEY) config: AppConfig,
    @InjectMetric(READ_CACHE_HITS) private readonly hits: Counter,
    @InjectMetric(READ_CACHE_MISSES) private readonly misses: Counter,
  ) {
    this.defaultTtlMs = config.CACHE_MAX_AGE_S * 1000;
    broadcast.listen(CHANGED_CHANNEL, { message: () => this.clear(), resync: () => this.clear() });
  }

  get generation(): CacheGeneration {
    return this.currentGeneration;
  }

  /** The reply stored for `key`, if any may be served now. */
  get(key: string): string | undefined {
    const reply = this.broadcast.reliable ? this.replies.get(key) : undefined;
    (reply === undefined ? this.misses : this.hits).inc();
    return reply;
  }

  /** Stores a reply read since `generation` began, unless public content changed meanwhile. */
  store(key: string, reply: string, generation: CacheGeneration, ttlMs: number): void {
    if (generation === this.currentGeneration && this.broadcast.reliable && ttlMs > 0) this.replies.set(key, reply, { ttl: ttlMs });
  }

  /** Public content changed: empties the cache here at once, and on every other instance. */
  async contentChanged(): Promise<void> {
    this.clear();
    await this.broadcast.publish(CHANGED_CHANNEL, '');
  }

  private clear(): void {
    this.currentGeneration += 1;
    this.replies.clear();
  }
}
