import { Global, Module } from '@nestjs/common';
import { BodySizeLimits } from './body-size-limits';
import { JsonBodyReader } from './json-body-reader';
import { RawBodyRoutes } from './raw-body-routes';

/**
 * What features declare about their request bodies (size limits, raw
 * uploads) at construction, and the JSON reader raw routes may use. A
 * module of its own so that a context without the HTTP pipeline (the
 * operator CLI) can still build those features.
 */
@Global()
@Module({
  providers: [BodySizeLimits, RawBodyRoutes, JsonBodyReader],
  exports: [BodySizeLimits, RawBodyRoutes, JsonBodyReader],
})
export class RequestBodiesModule {}
