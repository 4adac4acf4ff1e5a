import { Global, MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { AccessGuard } from '../auth/access.guard';
import { HttpErrorFilter } from './errors/http-error.filter';
import { JsonBodyMiddleware } from './http/json-body.middleware';
import { RequestBodiesModule } from './http/request-bodies.module';
import { RateLimitGuard, RateLimitModule } from './http/rate-limit.module';
import { RedisModule } from './redis/redis.module';
import { RejectUndecodablePathMiddleware } from './http/undecodable-path';
import { LoggingModule } from './logging/logging.module';
import { StrictValidationPipe } from './validation/validation.pipe';

/**
 * The request pipeline every route shares, registered as APP_* providers and
 * module middleware so that tests that boot AppModule get exactly the
 * production pipeline.
 */
@Global()
@Module({
  imports: [LoggingModule, RedisModule, RateLimitModule, RequestBodiesModule],
  providers: [
    // Global guards run in the order they are registered, which across modules depends on how Nest
    // scans them; listed here, rate limiting comes first, so an anonymous flood is throttled before
    // the access check (protection by default: every route needs a token unless marked otherwise).
    { provide: APP_GUARD, useClass: RateLimitGuard },
    { provide: APP_GUARD, useClass: AccessGuard },
    { provide: APP_FILTER, useClass: HttpErrorFilter },
    { provide: APP_PIPE, useClass: StrictValidationPipe },
  ],
})
export class CoreModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(RejectUndecodablePathMiddleware, JsonBodyMiddleware).forRoutes('*');
  }
}
