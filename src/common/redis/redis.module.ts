import { Global, Module } from '@nestjs/common';
import { makeScrapeGaugeProvider } from '../../metrics/scrape-gauge';
import { Broadcast } from './broadcast';
import { SharedRedis } from './shared-redis';

/**
 * State several instances must share (docs/api-rules.md §8): with REDIS_URL, a Redis
 * connection (rate-limit storage) and pub/sub (auth-cache invalidation);
 * without it, no connection at all and messages stay in process.
 */
@Global()
@Module({
  providers: [
    SharedRedis,
    Broadcast,
    makeScrapeGaugeProvider({
      name: 'registry_redis_connected',
      help: '1 while Redis is connected and its messages arrive (always 1 without REDIS_URL: nothing is shared), 0 while not',
      owner: Broadcast,
      read: (broadcast: Broadcast) => (broadcast.connected ? 1 : 0),
    }),
  ],
  exports: [SharedRedis, Broadcast],
})
export class RedisModule {}
