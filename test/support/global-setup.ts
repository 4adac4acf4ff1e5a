import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '../../src/database/database-options';
import { parseDatabaseUrl } from '../../src/database/database-url';

/**
 * On PostgreSQL every e2e file shares one database (one suite at a time, see
 * jest.config.js): migrate it once here, before any suite starts an app.
 * (SQLite runs use a fresh in-memory database per app, migrated at startup
 * like production.)
 */
export default async function globalSetup(): Promise<void> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) return;
  const dataSource = new DataSource(buildDataSourceOptions(parseDatabaseUrl(url)));
  await dataSource.initialize();
  await dataSource.destroy();
}
