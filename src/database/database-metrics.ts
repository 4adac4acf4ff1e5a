import { Injectable, Module, Provider } from '@nestjs/common';
import { InjectMetric, makeCounterProvider } from '@willsoto/nestjs-prometheus';
import { Counter } from 'prom-client';
import { Logger } from 'typeorm';
import { makeScrapeGaugeProvider } from '../metrics/scrape-gauge';
import { ConnectionPool } from './connection-pool';

const QUERY_ERRORS = 'registry_db_query_errors_total';

/**
 * The application data source's TypeORM logger: it writes nothing (as with
 * `logging: false`; failures reach the service's log with their request) and
 * counts each statement the database refused. Both drivers call
 * `logQueryError` before they throw the QueryFailedError.
 */
@Injectable()
export class QueryErrorCounter implements Logger {
  constructor(@InjectMetric(QUERY_ERRORS) private readonly errors: Counter) {}

  logQueryError(): void {
    this.errors.inc();
  }

  logQuery(): void {}
  logQuerySlow(): void {}
  logSchemaBuild(): void {}
  logMigration(): void {}
  log(): void {}
}

/** The logger in a module of its own: the data source's factory needs it before the data source exists. */
@Module({
  providers: [
    makeCounterProvider({ name: QUERY_ERRORS, help: 'Statements the database refused (constraint violations included)' }),
    QueryErrorCounter,
  ],
  exports: [QueryErrorCounter],
})
export class QueryErrorsModule {}

/** The connection pool, read on scrape (SQLite: its one connection and TransactionRunner's queue). */
export const CONNECTION_POOL_METRICS: Provider[] = [
  makeScrapeGaugeProvider({
    name: 'registry_db_pool_max_connections',
    help: 'The most connections the pool opens',
    owner: ConnectionPool,
    read: (pool: ConnectionPool) => pool.state().max,
  }),
  makeScrapeGaugeProvider({
    name: 'registry_db_pool_connections',
    help: 'Open connections, busy or idle',
    label: 'state',
    owner: ConnectionPool,
    read: (pool: ConnectionPool) => {
      const { busy, idle } = pool.state();
      return new Map([['busy', busy], ['idle', idle]]);
    },
  }),
  makeScrapeGaugeProvider({
    name: 'registry_db_pool_waiting_requests',
    help: 'Requests for a connection waiting for one to be free',
    owner: ConnectionPool,
    read: (pool: ConnectionPool) => pool.state().waiting,
  }),
];
