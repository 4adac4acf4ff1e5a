import { applyDecorators, ExecutionContext, Inject, Injectable, Module } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import { InjectThrottlerStorage, SkipThrottle, ThrottlerGuard, ThrottlerLimitDetail, ThrottlerModule, ThrottlerStorage } from '@nestjs/throttler';
import { hashToken } from '../../auth/token-hash';
import { appConfig, AppConfig } from '../../config/config.module';
import { TooManyRequestsException } from '../errors/too-many-requests.exception';
import { FailOpenThrottlerStorage } from '../redis/fail-open-throttler-storage';
import { SharedRedis } from '../redis/shared-redis';
import { HttpRequest } from './http-request';
import { bearerTokenOf } from './bearer-token';

const THROTTLERS = { ip: 'ip', token: 'token' } as const;

/** Marks an operation of the OpenAPI document that no rate limit applies to (read and removed by swagger.ts). */
export const UNLIMITED_OPERATION = 'x-unlimited-operation';

/** Exempts a route or controller from both rate-limit windows. */
export const SkipRateLimit = () =>
  applyDecorators(SkipThrottle({ [THROTTLERS.ip]: true, [THROTTLERS.token]: true }), ApiExtension(UNLIMITED_OPERATION, true));

/** A client's one window across all routes (the library's default key is per route). */
const windowKey = (throttler: string, tracker: string) => `${throttler}:${tracker}`;

/** The contract's 429: the error body plus a plain `Retry-After`. */
function tooManyRequests(limit: number, ttlMs: number, retryAfterS: number): TooManyRequestsException {
  return new TooManyRequestsException(`too many requests: at most ${limit} per ${ttlMs / 1000} s; retry after ${retryAfterS} s`, Math.max(1, retryAfterS));
}

@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  protected override throwThrottlingException(_context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    throw tooManyRequests(detail.limit, detail.ttl, detail.timeToBlockExpire);
  }
}

/**
 * The per-token window for a token that comes in a request body (the
 * publishing CLI's `personal_access_token`), which the guard cannot see: it
 * runs before the body is read. The same window as the token's in a bearer
 * header (same key, same storage), counted once the body is read.
 */
@Injectable()
export class BodyTokenRateLimit {
  constructor(
    @InjectThrottlerStorage() private readonly storage: ThrottlerStorage,
    @Inject(appConfig.KEY) private readonly config: AppConfig,
  ) {}

  /** Counts one request of `token`'s; 429 past the window's limit. */
  async hit(token: string): Promise<void> {
    const limit = this.config.THROTTLE_LIMIT;
    if (limit === 0) return;
    const ttlMs = this.config.THROTTLE_TTL_S * 1000;
    const { isBlocked, timeToBlockExpire } = await this.storage.increment(windowKey(THROTTLERS.token, hashToken(token)), ttlMs, limit, ttlMs, THROTTLERS.token);
    if (isBlocked) throw tooManyRequests(limit, ttlMs, timeToBlockExpire);
  }
}

/**
 * Two windows of THROTTLE_LIMIT requests per THROTTLE_TTL_S: one per client
 * IP, one per bearer token (tracked by its hash, never the token itself).
 * THROTTLE_LIMIT=0 turns both off. With REDIS_URL the windows live in Redis,
 * shared by every instance; otherwise in this process.
 */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [appConfig.KEY, SharedRedis],
      useFactory: (config: AppConfig, redis: SharedRedis) => {
        const window = { ttl: config.THROTTLE_TTL_S * 1000, limit: config.THROTTLE_LIMIT };
        const disabled = config.THROTTLE_LIMIT === 0;
        return {
          storage: redis.client ? new FailOpenThrottlerStorage(redis.client, redis) : undefined,
          setHeaders: false,
          skipIf: () => disabled,
          generateKey: (_context: ExecutionContext, tracker: string, throttler: string) => windowKey(throttler, tracker),
          throttlers: [
            { name: THROTTLERS.ip, ...window, getTracker: (req: Record<string, unknown>) => String((req as unknown as HttpRequest).ip) },
            {
              name: THROTTLERS.token,
              ...window,
              getTracker: (req: Record<string, unknown>) => hashToken(bearerTokenOf((req as unknown as HttpRequest).headers.authorization) ?? ''),
              // A throttler's own skipIf replaces the common one, so it repeats `disabled`.
              skipIf: (context: ExecutionContext) => disabled || !bearerTokenOf(context.switchToHttp().getRequest<HttpRequest>().headers.authorization),
            },
          ],
        };
      },
    }),
  ],
  providers: [BodyTokenRateLimit],
  exports: [BodyTokenRateLimit],
})
export class RateLimitModule {}
