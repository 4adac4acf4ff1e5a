import { Global, Module } from '@nestjs/common';
import { Broadcast } from './broadcast';
import { SharedRedis } from './shared-redis';

/**
 * State several instances must share (docs/api-rules.md §8): with REDIS_URL, a Redis
 * connection (rate-limit storage) and pub/sub (auth-cache invalidation);
 * without it, no connection at all and messages stay in process.
 */
@Global()
@Module({
  providers: [SharedRedis, Broadcast],
  exports: [SharedRedis, Broadcast],
})
export class RedisModule {}
