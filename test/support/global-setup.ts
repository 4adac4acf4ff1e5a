import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '../../src/database/database-options';
import { parseDatabaseUrl } from '../../src/database/database-url';

/**
 * On PostgreSQL every e2e file shares one database: migrate it once here so
 * parallel workers never race to create the schema. (SQLite runs use a fresh
 * in-memory database per app, migrated at startup like production.)
 */
export default async function globalSetup(): Promise<void> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) return;
  const dataSource = new DataSource(buildDataSourceOptions(parseDatabaseUrl(url)));
  await dataSource.initialize();
  await dataSource.destroy();
}
