import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DataSourceOptions, MigrationInterface } from 'typeorm';
import { AccessTokenEntity } from '../users/entities/access-token.entity';
import { CreditLedgerEntryEntity } from '../users/entities/credit-ledger-entry.entity';
import { CreditReservationEntity } from '../users/entities/credit-reservation.entity';
import { UserEntity } from '../users/entities/user.entity';
import { PublisherEntity } from '../publishers/entities/publisher.entity';
import { PublisherMemberEntity } from '../publishers/entities/publisher-member.entity';
import { NodeEntity } from '../nodes/entities/node.entity';
import { NodeVersionEntity } from '../nodes/entities/node-version.entity';
import { ReviewEntity } from '../reviews/entities/review.entity';
import { CallbackDeliveryEntity } from '../video-proxy/entities/callback-delivery.entity';
import { IdempotencyKeyEntity } from '../video-proxy/entities/idempotency-key.entity';
import { UpstreamNonceEntity } from '../video-proxy/entities/upstream-nonce.entity';
import { EarlyUpstreamStatusEntity } from '../video-proxy/entities/early-upstream-status.entity';
import { VideoTaskEntity } from '../video-proxy/entities/video-task.entity';
import { VideoResultEntity } from '../video-proxy/entities/video-result.entity';
import { DatabaseTarget } from './database-url';
import { FOLD_CASE_SQL, foldCase } from './fold-case';
import { SigningKeyEntity } from './signing-keys';
import { CatalogCountEntity } from '../nodes/entities/catalog-count.entity';
import { SearchTotalEntity } from '../nodes/entities/search-total.entity';
import { ComfyNodeEntity } from '../nodes/comfy-nodes/entities/comfy-node.entity';
import { ComfyNodeExtractionFailureEntity } from '../nodes/comfy-nodes/entities/comfy-node-extraction-failure.entity';
import { VersionReviewEntity } from '../nodes/review/entities/version-review.entity';
import { VersionStatusChangeEntity } from '../nodes/review/entities/version-status-change.entity';

export const ENTITIES = [
  UserEntity,
  AccessTokenEntity,
  CreditLedgerEntryEntity,
  CreditReservationEntity,
  PublisherEntity,
  PublisherMemberEntity,
  NodeEntity,
  NodeVersionEntity,
  CatalogCountEntity,
  SearchTotalEntity,
  ComfyNodeEntity,
  ComfyNodeExtractionFailureEntity,
  VersionReviewEntity,
  VersionStatusChangeEntity,
  ReviewEntity,
  VideoTaskEntity,
  VideoResultEntity,
  IdempotencyKeyEntity,
  CallbackDeliveryEntity,
  UpstreamNonceEntity,
  EarlyUpstreamStatusEntity,
  SigningKeyEntity,
];

/** The part of better-sqlite3's Database that connection setup needs. */
interface SqliteConnection {
  prepare(sql: string): unknown;
  pragma(statement: string): unknown;
  function(name: string, options: { deterministic: boolean }, implementation: (value: unknown) => unknown): unknown;
}

/**
 * Every migration file beside this one, as TypeORM loads them: `.ts` under
 * ts-jest and ts-node, `.js` in dist/. Adding a migration is adding its file.
 */
export const MIGRATIONS = join(__dirname, 'migrations', '*.{js,ts}');

/** Entities and migrations a feature mounted from outside src/ brings along (see docs/extending.md). */
export interface SchemaExtension {
  entities?: EntityClass[];
  migrations?: MigrationClass[];
}

type EntityClass = new () => object;
type MigrationClass = new () => MigrationInterface;

/**
 * The one place TypeORM options are built: used by the app, `ormconfig.ts`,
 * the CLI and the tests. Schema changes only ever come from migrations.
 */
export function buildDataSourceOptions(target: DatabaseTarget, extensions: SchemaExtension[] = []): DataSourceOptions {
  const common = {
    entities: [...ENTITIES, ...extensions.flatMap((extension) => extension.entities ?? [])],
    migrations: [MIGRATIONS, ...extensions.flatMap((extension) => extension.migrations ?? [])],
    migrationsRun: true,
    migrationsTransactionMode: 'each' as const,
    synchronize: false,
    logging: false,
  };
  if (target.type === 'postgres') {
    return { ...common, type: 'postgres', url: target.url, extra: { max: 20 } };
  }
  if (target.path !== ':memory:') {
    mkdirSync(dirname(target.path), { recursive: true });
  }
  return {
    ...common,
    type: 'better-sqlite3',
    database: target.path,
    // WAL lets the CLI and a running server share the file; the busy timeout covers their brief write overlaps.
    enableWAL: target.path !== ':memory:',
    timeout: 5000,
    prepareDatabase: (db: SqliteConnection) => {
      db.pragma('foreign_keys = ON');
      // 64 MiB of page cache instead of SQLite's 2 MB: a catalog page reads rows scattered over the table (the
      // listing's order is not the table's), and with 2 MB a page of 1,000 read most of them from the OS again
      // each time. Pages are allocated as they are read, so a small database uses only what it holds.
      db.pragma('cache_size = -65536');
      // Pages outside that cache are read from a memory map of the file (up to 1 GiB of it, address space only)
      // instead of a read() and a copy each: a crawl of the catalog reads every row once, and at 50,000 nodes
      // its pages of 1,000 cost 15-17 ms instead of 18-30.
      db.pragma('mmap_size = 1073741824');
      beginTransactionsImmediate(db);
      // SQLite's built-in lower() folds only ASCII; PostgreSQL's folds all of Unicode.
      db.function('lower', { deterministic: true }, (value: unknown) =>
        typeof value === 'string' ? value.toLowerCase() : value,
      );
      // The search's folding (PostgreSQL has it from a migration).
      db.function(FOLD_CASE_SQL, { deterministic: true }, (value: unknown) => (typeof value === 'string' ? foldCase(value) : value));
    },
  };
}

/**
 * TypeORM opens every SQLite transaction with a deferred `BEGIN`: it starts as a reader and takes the
 * write lock at its first write. When another process (the CLI) writes the file in between, that
 * first write fails at once with SQLITE_BUSY, without the busy timeout's wait, and the request got a 500.
 * `BEGIN IMMEDIATE` takes the write lock first, so the transaction waits for the other writer instead.
 * Every transaction here writes, and this process's own are queued one at a time anyway (TransactionRunner).
 */
function beginTransactionsImmediate(db: SqliteConnection): void {
  const prepare = db.prepare.bind(db);
  db.prepare = (sql: string) => prepare(sql === 'BEGIN TRANSACTION' ? 'BEGIN IMMEDIATE TRANSACTION' : sql);
}
