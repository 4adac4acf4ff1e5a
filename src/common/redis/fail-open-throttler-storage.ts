import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import { ThrottlerStorage } from '@nestjs/throttler';
import { ThrottlerStorageRecord } from '@nestjs/throttler/dist/throttler-storage-record.interface';
import Redis from 'ioredis';
import { SharedRedis } from './shared-redis';

/**
 * Rate-limit windows in Redis, shared by every instance (the maintained
 * @nest-lab/throttler-storage-redis does the counting). While Redis cannot
 * be reached, a request is let through uncounted and the outage is logged
 * once a minute (docs/api-rules.md §8: rate limiting fails open, the service keeps
 * serving).
 */
export class FailOpenThrottlerStorage implements ThrottlerStorage {
  private readonly shared: ThrottlerStorageRedisService;

  constructor(
    client: Redis,
    private readonly redis: SharedRedis,
  ) {
    this.shared = new ThrottlerStorageRedisService(client);
  }

  async increment(key: string, ttl: number, limit: number, blockDuration: number, throttlerName: string): Promise<ThrottlerStorageRecord> {
    try {
      return await this.shared.increment(key, ttl, limit, blockDuration, throttlerName);
    } catch (error) {
      this.redis.warn(error, 'rate limits are not enforced until it is back');
      return { totalHits: 0, timeToExpire: 0, isBlocked: false, timeToBlockExpire: 0 };
    }
  }
}
