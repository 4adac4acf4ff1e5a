import { ConflictException, Injectable } from '@nestjs/common';
import { DataSource, EntityManager, FindOneOptions, QueryFailedError } from 'typeorm';

/** PostgreSQL's unique_violation, and SQLite's unique / primary-key constraint codes. */
const UNIQUE_VIOLATIONS = new Set(['23505', 'SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY']);

export function isUniqueViolation(error: unknown): boolean {
  if (!(error instanceof QueryFailedError)) return false;
  const code = (error.driverError as { code?: unknown }).code;
  return typeof code === 'string' && UNIQUE_VIOLATIONS.has(code);
}

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
 *
 * Services check uniqueness before inserting, to answer with a precise 409;
 * two concurrent requests can both pass that check on PostgreSQL, and the
 * loser's unique violation becomes a 409 here instead of a 500.
 */
@Injectable()
export class TransactionRunner {
  private queueTail: Promise<unknown> = Promise.resolve();

  constructor(private readonly dataSource: DataSource) {}

  get isPostgres(): boolean {
    return this.dataSource.options.type === 'postgres';
  }

  async run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    try {
      return await this.transaction(work);
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new ConflictException('conflicts with existing data (a concurrent request created it first)');
      }
      throw error;
    }
  }

  private transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
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
