import { DynamicModule, Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { appConfig, AppConfig } from '../config/config.module';
import { ConnectionPool } from './connection-pool';
import { CONNECTION_POOL_METRICS, QueryErrorCounter, QueryErrorsModule } from './database-metrics';
import { buildDataSourceOptions, SchemaExtension } from './database-options';
import { initializeMigrated } from './migrate';
import { SigningKeys } from './signing-keys';
import { TransactionRunner } from './transaction-runner';

@Global()
@Module({})
export class DatabaseModule {
  /** The application's data source: the built-in entities and migrations plus those of mounted extensions. */
  static forRoot(extensions: SchemaExtension[] = []): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          imports: [QueryErrorsModule],
          inject: [appConfig.KEY, QueryErrorCounter],
          useFactory: (config: AppConfig, queryErrors: QueryErrorCounter) => ({
            ...buildDataSourceOptions(config.database, extensions),
            logger: queryErrors,
            // Fail fast when the database is unreachable (the default retries for ~30 s); orchestrators restart.
            retryAttempts: 2,
            retryDelay: 1000,
          }),
          // Instances starting together on one PostgreSQL database migrate one at a time.
          dataSourceFactory: (options) => {
            if (!options) throw new Error('no data source options');
            return initializeMigrated(options);
          },
        }),
      ],
      providers: [TransactionRunner, SigningKeys, ConnectionPool, ...CONNECTION_POOL_METRICS],
      exports: [TransactionRunner, SigningKeys],
    };
  }
}
