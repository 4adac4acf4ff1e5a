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
 * with SELECT ... FOR NO KEY UPDATE (see `lockForUpdate`), and rows a
 * write only checks are guarded instead (see `runStatement`, stale-read.ts).
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
  private queuedUnits = 0;

  constructor(private readonly dataSource: DataSource) {}

  get isPostgres(): boolean {
    return this.dataSource.options.type === 'postgres';
  }

  /** SQLite: the units of work running (at most one) or waiting in the queue; PostgreSQL: 0 (its pool counts them). */
  get sqliteUnitsInProgress(): number {
    return this.queuedUnits;
  }

  /** The manager for reads outside any unit of work (what a write checks before its guarded statement). */
  get reads(): EntityManager {
    return this.dataSource.manager;
  }

  async run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.mappingConflicts(() => this.transaction(work));
  }

  /**
   * A unit of work that inserts a row it did not find (a create-or-update).
   * Two concurrent ones can both miss the row on PostgreSQL: the one whose
   * insert loses (a unique violation) runs once more, finds the row and
   * updates it. A violation on that second run is a 409, as in `run`.
   */
  async runCreatingIfMissing<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    try {
      return await this.transaction(work);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
    return this.run(work);
  }

  /**
   * A unit of work that is ONE statement, atomic by itself. On PostgreSQL it
   * runs on the pool without BEGIN/COMMIT: two round trips fewer, and the
   * rows it writes are locked only while it runs, so concurrent writers of a
   * popular row do not queue behind a transaction's round trips. On SQLite it
   * joins the queue like any transaction: a statement outside it would run
   * inside another request's open transaction on the shared connection.
   */
  runStatement<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.mappingConflicts(() => (this.isPostgres ? work(this.dataSource.manager) : this.transaction(work)));
  }

  private async mappingConflicts<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
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
    this.queuedUnits += 1;
    const result = this.queueTail.then(() => this.dataSource.transaction(work)).finally(() => (this.queuedUnits -= 1));
    this.queueTail = result.catch(() => undefined);
    return result;
  }

  /**
   * Find options that lock the selected row (of `alias` only, for a query
   * whose outer join cannot be locked) until the transaction ends (no-op on
   * SQLite, which is already serialised). FOR NO KEY UPDATE: it serialises
   * the row's writers as FOR UPDATE does (no write here changes a key), but
   * not the KEY SHARE lock that inserting a row referencing it takes, so a
   * transaction that inserted a review of a node and then locks the node
   * cannot deadlock with another doing the same. Never FOR SHARE: share
   * lockers join each other's lock without queueing behind a waiting
   * UPDATE, so a stream of them could hold that UPDATE off for minutes.
   */
  lockForUpdate(alias?: string): Pick<FindOneOptions, 'lock'> {
    return this.isPostgres ? { lock: { mode: 'for_no_key_update', ...(alias && { tables: [alias] }) } } : {};
  }
}
