import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { waitFor } from './server-process';

/**
 * A fresh, empty PostgreSQL database on the server TEST_DATABASE_URL names
 * (made and dropped with .ci/pg-database.js), or null when no PostgreSQL is
 * given: suites that need one are then skipped.
 */
export function freshPostgresDatabase(prefix: string): { url: string; drop: () => void } | null {
  const base = process.env.TEST_DATABASE_URL;
  if (!base?.startsWith('postgres')) return null;
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  execFileSync(process.execPath, ['.ci/pg-database.js', 'create', name]);
  const url = new URL(base);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => execFileSync(process.execPath, ['.ci/pg-database.js', 'drop', name]) };
}

/**
 * Resolves once at least `count` sessions of the test database wait on a lock (requests queued on a row a test
 * holds); fails after 10 s, so a request that never queues fails its test instead of holding it to the suite's end.
 */
export async function lockWaiters(dataSource: DataSource, count: number): Promise<void> {
  await waitFor(
    async () => {
      const [row] = await dataSource.query<{ count: string }[]>(
        `SELECT count(*) AS count FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      return Number(row.count) >= count;
    },
    10_000,
    `${count} sessions waiting on a lock`,
  );
}
