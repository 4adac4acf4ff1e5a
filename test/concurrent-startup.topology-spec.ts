import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshPostgresDatabase } from './support/postgres';
import { freePort, ServerProcess, TestDatabase } from './support/server-process';

const describeWithPostgres = process.env.TEST_DATABASE_URL?.startsWith('postgres') ? describe : describe.skip;

/** README "Running several instances": instances started together on an empty database both come up, migrated once. */
describeWithPostgres('Several instances starting at the same moment on an empty PostgreSQL database', () => {
  it('both come up, and every migration ran once', async () => {
    const database = freshPostgresDatabase('registry_startup');
    if (!database) throw new Error('TEST_DATABASE_URL is not PostgreSQL');
    const dir = mkdtempSync(join(tmpdir(), 'registry-startup-'));
    const env = { DATABASE_URL: database.url, STORAGE_DIR: dir, LOG_LEVEL: 'info' };
    const servers = [
      ServerProcess.start({ ...env, PORT: String(await freePort()) }, { built: true }),
      ServerProcess.start({ ...env, PORT: String(await freePort()) }, { built: true }),
    ];
    try {
      await Promise.all(servers.map((server) => server.ready()));
      for (const server of servers) {
        expect((await fetch(`${server.url}/health/ready`)).status).toBe(200);
        // Not up by luck: no instance failed a migration and came up only on its connection retry.
        expect(server.output()).not.toContain('Unable to connect to the database');
      }
      const inspect = await TestDatabase.open(database.url);
      const runs = await inspect.dataSource.query<{ name: string }[]>('SELECT "name" FROM "migrations" ORDER BY "id"');
      await inspect.close();
      // Each migration once, in the order TypeORM runs them: by the timestamp that ends each name.
      const timestamp = (name: string) => Number(/\d{13}$/.exec(name)?.[0]);
      const expected = inspect.dataSource.migrations.map((migration) => migration.name ?? '').sort((a, b) => timestamp(a) - timestamp(b));
      expect(runs.map((run) => run.name)).toEqual(expected);
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
      database.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
