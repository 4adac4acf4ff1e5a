import { Counter } from 'prom-client';
import { AppConfig } from '../../config/config.module';
import { Broadcast, BroadcastListener } from '../redis/broadcast';
import { PublicReadCache } from './public-read-cache';

/** A broadcast whose reliability the test sets, and whose messages it delivers by hand. */
class FakeBroadcast {
  reliable = true;
  listener?: BroadcastListener;
  listen(_channel: string, listener: BroadcastListener): void {
    this.listener = listener;
  }
  publish(): Promise<void> {
    return Promise.resolve();
  }
}

describe('PublicReadCache', () => {
  let broadcast: FakeBroadcast;
  let cache: PublicReadCache;
  let hits: Counter;
  let misses: Counter;

  beforeEach(() => {
    broadcast = new FakeBroadcast();
    // Counters of no registry: each test counts from zero.
    hits = new Counter({ name: 'hits', help: 'hits', registers: [] });
    misses = new Counter({ name: 'misses', help: 'misses', registers: [] });
    cache = new PublicReadCache(broadcast as unknown as Broadcast, { CACHE_MAX_AGE_S: 60 } as AppConfig, hits, misses);
  });

  it('counts the lookups it answers and those it cannot (the hit ratio)', async () => {
    cache.get('/nodes?');
    cache.store('/nodes?', 'page', cache.generation, 60_000);
    cache.get('/nodes?');
    cache.get('/nodes?');
    broadcast.reliable = false;
    cache.get('/nodes?');
    expect([(await hits.get()).values[0].value, (await misses.get()).values[0].value]).toEqual([2, 2]);
  });

  it('keeps a reply until public content changes, here or on another instance', async () => {
    cache.store('/nodes?', 'page', cache.generation, 60_000);
    expect(cache.get('/nodes?')).toBe('page');
    await cache.contentChanged();
    expect(cache.get('/nodes?')).toBeUndefined();
    cache.store('/nodes?', 'page 2', cache.generation, 60_000);
    broadcast.listener?.message('');
    expect(cache.get('/nodes?')).toBeUndefined();
  });

  it('does not store a reply read before a change it may not show', async () => {
    const started = cache.generation;
    await cache.contentChanged();
    cache.store('/nodes/x?', 'read before the change', started, 60_000);
    expect(cache.get('/nodes/x?')).toBeUndefined();
  });

  it('neither serves nor stores while the broadcast cannot promise delivery, and drops everything on resync', () => {
    cache.store('/a?', 'kept', cache.generation, 60_000);
    broadcast.reliable = false;
    expect(cache.get('/a?')).toBeUndefined();
    cache.store('/b?', 'not kept', cache.generation, 60_000);
    broadcast.reliable = true;
    expect(cache.get('/b?')).toBeUndefined();
    broadcast.listener?.resync();
    expect(cache.get('/a?')).toBeUndefined();
  });

  it('forgets a reply after its time to live', async () => {
    // lru-cache reads performance.now(), and keeps each reading for a millisecond: a clock of the test's own.
    const now = jest.spyOn(performance, 'now').mockReturnValue(1_000);
    try {
      cache.store('/nodes/y?', 'short', cache.generation, 20);
      const readAt = async (ms: number) => {
        now.mockReturnValue(ms);
        await new Promise((resolve) => setTimeout(resolve, 5));
        return cache.get('/nodes/y?');
      };
      expect(await readAt(1_019)).toBe('short');
      expect(await readAt(1_021)).toBeUndefined();
    } finally {
      now.mockRestore();
    }
  });
});
