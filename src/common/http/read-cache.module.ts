import { Global, Module } from '@nestjs/common';
import { PublicReadCache } from './public-read-cache';

/**
 * The read cache of public replies, in a module of its own so that a context
 * without the HTTP pipeline (the operator CLI) can still build the features
 * whose routes use it.
 */
@Global()
@Module({
  providers: [PublicReadCache],
  exports: [PublicReadCache],
})
export class ReadCacheModule {}
