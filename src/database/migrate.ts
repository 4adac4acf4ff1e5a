import { DataSource, DataSourceOptions } from 'typeorm';

/** Any fixed number: the PostgreSQL advisory lock instances take while migrating. */
const MIGRATION_LOCK = 7_470_211_001;

/**
 * Connects and runs pending migrations. On PostgreSQL under a session
 * advisory lock, so that instances started together on one database migrate
 * one after another: the first applies the migrations, the others then find
 * none pending (TypeORM takes no lock, and two instances both ran the same
 * migration: the second failed on "already exists"). SQLite serialises
 * writers itself, and a file has one server.
 */
export async function initializeMigrated(options: DataSourceOptions): Promise<DataSource> {
  const dataSource = await new DataSource({ ...options, migrationsRun: false }).initialize();
  try {
    if (dataSource.options.type !== 'postgres') {
      await dataSource.runMigrations({ transaction: 'each' });
      return dataSource;
    }
    const lock = dataSource.createQueryRunner();
    try {
      await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
      await dataSource.runMigrations({ transaction: 'each' });
    } finally {
      await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
      await lock.release();
    }
    return dataSource;
  } catch (error) {
    await dataSource.destroy();
    throw error;
  }
}
