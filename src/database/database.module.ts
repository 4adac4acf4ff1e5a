import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { appConfig, AppConfig } from '../config/config.module';
import { buildDataSourceOptions } from './database-options';
import { TransactionRunner } from './transaction-runner';

@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [appConfig.KEY],
      useFactory: (config: AppConfig) => ({
        ...buildDataSourceOptions(config.database),
        // Fail fast when the database is unreachable (the default retries for ~30 s); orchestrators restart.
        retryAttempts: 2,
        retryDelay: 1000,
      }),
    }),
  ],
  providers: [TransactionRunner],
  exports: [TransactionRunner],
})
export class DatabaseModule {}
