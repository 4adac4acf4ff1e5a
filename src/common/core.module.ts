import { Global, MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { HttpErrorFilter } from './errors/http-error.filter';
import { BodySizeLimits } from './http/body-size-limits';
import { JsonBodyMiddleware } from './http/json-body.middleware';
import { RawBodyRoutes } from './http/raw-body-routes';
import { RateLimitModule } from './http/rate-limit.module';
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
  imports: [LoggingModule, RateLimitModule],
  providers: [
    { provide: APP_FILTER, useClass: HttpErrorFilter },
    { provide: APP_PIPE, useClass: StrictValidationPipe },
    BodySizeLimits,
    RawBodyRoutes,
  ],
  exports: [BodySizeLimits, RawBodyRoutes],
})
export class CoreModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(RejectUndecodablePathMiddleware, JsonBodyMiddleware).forRoutes('*');
  }
}
