import { Broadcast } from '../common/redis/broadcast';
import { SharedRedis } from '../common/redis/shared-redis';
import { validateEnvironment } from '../config/environment';
import { TokenCache } from './token-cache';

/** As the service runs without REDIS_URL: one instance, messages in process. */
function inProcessCache(): TokenCache {
  return new TokenCache(new Broadcast(new SharedRedis(validateEnvironment({}))));
}

const ann = { id: 'u1', email: 'ann@example.com', name: 'Ann', isAdmin: false };

describe('TokenCache', () => {
  afterEach(() => jest.restoreAllMocks());

  it('remembers a principal for 10 seconds', async () => {
    // lru-cache reads performance.now(), and keeps each reading for a millisecond.
    const now = jest.spyOn(performance, 'now').mockReturnValue(1_000);
    const cache = inProcessCache();
    cache.set('h1', ann);
    const readAt = async (ms: number) => {
      now.mockReturnValue(ms);
      await new Promise((resolve) => setTimeout(resolve, 5));
      return cache.get('h1');
    };
    expect(await readAt(10_990)).toBe(ann);
    expect(await readAt(11_010)).toBeUndefined();
  });

  it('forgets an evicted token at once', async () => {
    const cache = inProcessCache();
    cache.set('h1', ann);
    await cache.evict('h1');
    expect(cache.get('h1')).toBeUndefined();
  });

  it('stays bounded, dropping the least recently used entries', () => {
    const cache = inProcessCache();
    for (let i = 0; i < 10_000; i++) cache.set(`h${i}`, ann);
    expect(cache.get('h0')).toBe(ann);
    cache.set('h10000', ann);
    expect(cache.get('h0')).toBe(ann);
    expect(cache.get('h1')).toBeUndefined();
    expect(cache.get('h10000')).toBe(ann);
  });
});
