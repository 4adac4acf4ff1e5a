import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, FindOneOptions } from 'typeorm';

/**
 * Runs units of work atomically on either database.
 *
 * PostgreSQL: a real transaction per unit; rows that guard a counter are taken
 * with SELECT ... FOR UPDATE (see `lockForUpdate`).
 *
 * SQLite (better-sqlite3): TypeORM shares ONE connection between all callers,
 * so two interleaved transactions would collide, and a write from another
 * request would silently join (and roll back with) someone else's
 * transaction. Units of work are therefore queued and run one at a time,
 * which is also the only concurrency SQLite offers for writers.
 */
@Injectable()
export class TransactionRunner {
  private queueTail: Promise<unknown> = Promise.resolve();

  constructor(private readonly dataSource: DataSource) {}

  get isPostgres(): boolean {
    return this.dataSource.options.type === 'postgres';
  }

  run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    if (this.isPostgres) {
      return this.dataSource.transaction(work);
    }
    const result = this.queueTail.then(() => this.dataSource.transaction(work));
    this.queueTail = result.catch(() => undefined);
    return result;
  }

  /** Find options that lock the selected row until the transaction ends (no-op on SQLite, which is already serialised). */
  lockForUpdate(): Pick<FindOneOptions, 'lock'> {
    return this.isPostgres ? { lock: { mode: 'pessimistic_write' } } : {};
  }
}
