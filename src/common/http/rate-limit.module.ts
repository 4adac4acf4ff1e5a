import { applyDecorators, ExecutionContext, Injectable, Module } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import { SkipThrottle, ThrottlerGuard, ThrottlerLimitDetail, ThrottlerModule } from '@nestjs/throttler';
import { hashToken } from '../../auth/token-hash';
import { appConfig, AppConfig } from '../../config/config.module';
import { TooManyRequestsException } from '../errors/too-many-requests.exception';
import { FailOpenThrottlerStorage } from '../redis/fail-open-throttler-storage';
import { SharedRedis } from '../redis/shared-redis';
import { HttpRequest } from './http-request';

const THROTTLERS = { ip: 'ip', token: 'token' } as const;

/** Marks an operation of the OpenAPI document that no rate limit applies to (read and removed by swagger.ts). */
export const UNLIMITED_OPERATION = 'x-unlimited-operation';

/** Exempts a route or controller from both rate-limit windows. */
export const SkipRateLimit = () =>
  applyDecorators(SkipThrottle({ [THROTTLERS.ip]: true, [THROTTLERS.token]: true }), ApiExtension(UNLIMITED_OPERATION, true));

function bearerToken(req: HttpRequest): string | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  return match?.[1];
}

/** Sends the contract's 429: the error body plus a plain `Retry-After`. */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  protected override throwThrottlingException(_context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    throw new TooManyRequestsException(
      `too many requests: at most ${detail.limit} per ${detail.ttl / 1000} s; retry after ${detail.timeToBlockExpire} s`,
      Math.max(1, detail.timeToBlockExpire),
    );
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
          // One window per client across all routes (the default key is per route).
          generateKey: (_context: ExecutionContext, tracker: string, throttler: string) => `${throttler}:${tracker}`,
          throttlers: [
            { name: THROTTLERS.ip, ...window, getTracker: (req: Record<string, unknown>) => String((req as unknown as HttpRequest).ip) },
            {
              name: THROTTLERS.token,
              ...window,
              getTracker: (req: Record<string, unknown>) => hashToken(bearerToken(req as unknown as HttpRequest) ?? ''),
              // A throttler's own skipIf replaces the common one, so it repeats `disabled`.
              skipIf: (context: ExecutionContext) => disabled || !bearerToken(context.switchToHttp().getRequest<HttpRequest>()),
            },
          ],
        };
      },
    }),
  ],
})
export class RateLimitModule {}
