import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { TransactionRunner } from './transaction-runner';

/** The database connections as the metrics show them (database-metrics.ts). */
export interface ConnectionPoolState {
  /** The most connections the pool opens. */
  max: number;
  busy: number;
  idle: number;
  /** Requests for a connection waiting for one to be free. */
  waiting: number;
}

/** What node-postgres' Pool counts (its documented properties). */
interface PgPoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
  options: { max: number };
}

/** How busy the database connections are right now. */
@Injectable()
export class ConnectionPool {
  constructor(
    private readonly dataSource: DataSource,
    private readonly tx: TransactionRunner,
  ) {}

  state(): ConnectionPoolState {
    if (!this.tx.isPostgres) {
      // One connection, which better-sqlite3 uses synchronously: busy while a unit of work runs, the
      // others waiting in TransactionRunner's queue (a read outside a unit never holds it across an await).
      const units = this.tx.sqliteUnitsInProgress;
      return { max: 1, busy: Math.min(units, 1), idle: units > 0 ? 0 : 1, waiting: Math.max(units - 1, 0) };
    }
    // The one place that reads TypeORM's driver internals (docs/decisions.md#metrics): its pg Pool
    // (`master`) is the only source of these counts. Read only.
    const pool = (this.dataSource.driver as PostgresDriver).master as PgPoolCounts;
    return { max: pool.options.max, busy: pool.totalCount - pool.idleCount, idle: pool.idleCount, waiting: pool.waitingCount };
  }
}
