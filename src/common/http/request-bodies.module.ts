import { Global, Module } from '@nestjs/common';
import { BodySizeLimits } from './body-size-limits';
import { RawBodyRoutes } from './raw-body-routes';

/**
 * What features declare about their request bodies (size limits, raw
 * uploads) at construction. A module of its own so that a context without
 * the HTTP pipeline (the operator CLI) can still build those features.
 */
@Global()
@Module({
  providers: [BodySizeLimits, RawBodyRoutes],
  exports: [BodySizeLimits, RawBodyRoutes],
})
export class RequestBodiesModule {}
