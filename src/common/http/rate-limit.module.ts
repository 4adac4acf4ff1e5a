import { ExecutionContext, Injectable, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerGuard, ThrottlerLimitDetail, ThrottlerModule } from '@nestjs/throttler';
import { Request } from 'express';
import { hashToken } from '../../auth/token-hash';
import { appConfig, AppConfig } from '../../config/config.module';
import { TooManyRequestsException } from '../errors/too-many-requests.exception';

function bearerToken(req: Request): string | undefined {
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
 * THROTTLE_LIMIT=0 turns both off.
 */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [appConfig.KEY],
      useFactory: (config: AppConfig) => {
        const window = { ttl: config.THROTTLE_TTL_S * 1000, limit: config.THROTTLE_LIMIT };
        return {
          setHeaders: false,
          skipIf: () => config.THROTTLE_LIMIT === 0,
          throttlers: [
            { name: 'ip', ...window, getTracker: (req: Record<string, unknown>) => String((req as unknown as Request).ip) },
            {
              name: 'token',
              ...window,
              getTracker: (req: Record<string, unknown>) => hashToken(bearerToken(req as unknown as Request) ?? ''),
              skipIf: (context: ExecutionContext) => !bearerToken(context.switchToHttp().getRequest<Request>()),
            },
          ],
        };
      },
    }),
  ],
  providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
})
export class RateLimitModule {}
