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
  it('remembers a principal for 10 seconds', () => {
    const cache = inProcessCache();
    cache.set('h1', ann, 0);
    expect(cache.get('h1', 9_999)).toBe(ann);
    expect(cache.get('h1', 10_000)).toBeUndefined();
  });

  it('forgets an evicted token at once', async () => {
    const cache = inProcessCache();
    cache.set('h1', ann, 0);
    await cache.evict('h1');
    expect(cache.get('h1', 1)).toBeUndefined();
  });

  it('stays bounded, dropping the oldest entries', () => {
    const cache = inProcessCache();
    for (let i = 0; i <= 10_000; i++) cache.set(`h${i}`, ann, 0);
    expect(cache.get('h0', 1)).toBeUndefined();
    expect(cache.get('h10000', 1)).toBe(ann);
  });
});
