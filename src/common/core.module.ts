import { Global, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE, DiscoveryModule } from '@nestjs/core';
import { AccessGuard } from '../auth/access.guard';
import { HttpErrorFilter } from './errors/http-error.filter';
import { AllowedMethods } from './http/allowed-methods';
import { RequestInputInterceptor } from './http/request-input.interceptor';
import { ReadCacheModule } from './http/read-cache.module';
import { RateLimitGuard, RateLimitModule } from './http/rate-limit.module';
import { RedisModule } from './redis/redis.module';
import { LoggingModule } from './logging/logging.module';
import { BodyRulesCheck } from './validation/body-rules-check';
import { StrictValidationPipe } from './validation/validation.pipe';

/**
 * The request pipeline every route shares, registered as APP_* providers so
 * that tests that boot AppModule get exactly the
 * production pipeline.
 */
@Global()
@Module({
  imports: [DiscoveryModule, LoggingModule, RedisModule, RateLimitModule, ReadCacheModule],
  providers: [
    // Global guards run in the order they are registered, which across modules depends on how Nest
    // scans them; listed here, rate limiting comes first, so an anonymous flood is throttled before
    // the access check (protection by default: every route needs a token unless marked otherwise).
    { provide: APP_GUARD, useClass: RateLimitGuard },
    { provide: APP_GUARD, useClass: AccessGuard },
    // Bodies are read after the guards (see RequestInputInterceptor).
    { provide: APP_INTERCEPTOR, useClass: RequestInputInterceptor },
    { provide: APP_FILTER, useClass: HttpErrorFilter },
    // One instance: the interceptor asks it for the problems it reports with its own.
    StrictValidationPipe,
    { provide: APP_PIPE, useExisting: StrictValidationPipe },
    BodyRulesCheck,
    AllowedMethods,
  ],
})
export class CoreModule {}
