import { Global, Module } from '@nestjs/common';
import { makeCounterProvider } from '@willsoto/nestjs-prometheus';
import { PublicReadCache, READ_CACHE_HITS, READ_CACHE_MISSES } from './public-read-cache';

/**
 * The read cache of public replies, in a module of its own so that a context
 * without the HTTP pipeline (the operator CLI) can still build the features
 * whose routes use it.
 */
@Global()
@Module({
  providers: [
    PublicReadCache,
    // Their ratio is the hit ratio (computed in PromQL).
    makeCounterProvider({ name: READ_CACHE_HITS, help: 'Anonymous public reads answered from the read cache' }),
    makeCounterProvider({ name: READ_CACHE_MISSES, help: 'Anonymous public reads the read cache could not answer' }),
  ],
  exports: [PublicReadCache],
})
export class ReadCacheModule {}
