import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeVersionEntity } from '../src/nodes/entities/node-version.entity';
import { freePort, ServerProcess, TestDatabase, waitFor } from './support/server-process';
import { unique } from './support/test-app';
import { makeZip } from './support/zip';

/**
 * A pack big enough that its review (checks and node classes: 2,000 modules
 * of about 16 KiB) takes seconds, so a SIGKILL right after the upload's reply
 * lands in the middle of it.
 */
function bigPack(): Buffer {
  const body = `def helper_{n}(x):\n    return [x * i for i in range(10)]  # ${'padding '.repeat(8)}\n\n`;
  const files: Record<string, string> = { 'pack/__init__.py': 'from .node_0 import Node0\nNODE_CLASS_MAPPINGS = {"Node0": Node0}\n' };
  for (let i = 0; i < 2000; i++) {
    files[`pack/node_${i}.py`] = `class Node${i}:\n    CATEGORY = "bench"\n    FUNCTION = "run"\n\n${Array.from({ length: 160 }, (_, n) => body.replace('{n}', String(n))).join('')}`;
  }
  return makeZip(files);
}

/**
 * docs/api-rules.md §10: the checks are durable. A process killed while it
 * checks an archive leaves the version pending; the next process to start
 * finishes the review, once. On SQLite (a file), or on TEST_DATABASE_URL.
 */
describe('Crash recovery of archive reviews', () => {
  const dir = mkdtempSync(join(tmpdir(), 'registry-review-crash-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('SIGKILL mid-check, restart: the review finishes and the version becomes active', async () => {
    const databaseUrl = process.env.TEST_DATABASE_URL ?? `sqlite:${join(dir, 'review.sqlite')}`;
    const database = await TestDatabase.open(databaseUrl);
    const env = { DATABASE_URL: databaseUrl, LOG_LEVEL: 'info', THROTTLE_LIMIT: '0', STORAGE_DIR: join(dir, 'archives') };
    let server = ServerProcess.start({ ...env, PORT: String(await freePort()) });
    try {
      const owner = await database.seedUser(0);
      await server.ready();
      const [publisherId, nodeId] = [unique('crash'), unique('crash-node')];
      const send = (method: string, path: string, body: unknown, type = 'application/json') =>
        fetch(`${server.url}${path}`, {
          method,
          headers: { ...owner.auth, 'Content-Type': type },
          body: type === 'application/json' ? JSON.stringify(body) : (body as Buffer),
        });
      expect((await send('POST', '/publishers', { id: publisherId, name: 'Crash' })).status).toBe(201);
      expect((await send('POST', `/publishers/${publisherId}/nodes`, { id: nodeId, name: 'Crash node' })).status).toBe(201);
      const created = await send('POST', `/publishers/${publisherId}/nodes/${nodeId}/versions`, { version: '1.0.0' });
      const { id: versionId } = (await created.json()) as { id: string };
      const upload = await send('PUT', `/publishers/${publisherId}/nodes/${nodeId}/versions/1.0.0/archive`, bigPack(), 'application/zip');
      expect(upload.status).toBe(200);
      await server.stop('SIGKILL');

      const versions = database.dataSource.getRepository(NodeVersionEntity);
      // What the kill left: the archive stored, the version waiting for its checks.
      expect(await versions.findOneByOrFail({ id: versionId })).toMatchObject({ status: 'NodeVersionStatusPending', appNodeExtractStatus: 'pending' });

      server = ServerProcess.start({ ...env, PORT: String(await freePort()) });
      await server.ready();
      await waitFor(async () => (await versions.findOneByOrFail({ id: versionId })).status !== 'NodeVersionStatusPending', 60000, 'the review to finish');
      expect(await versions.findOneByOrFail({ id: versionId })).toMatchObject({ status: 'NodeVersionStatusActive', appNodeExtractStatus: 'success' });
      const review = await fetch(`${server.url}/publishers/${publisherId}/nodes/${nodeId}/versions/1.0.0/review`, { headers: owner.auth });
      const { history } = (await review.json()) as { history: Array<{ status: string; by: string }> };
      // Decided once, by the process that resumed it.
      expect(history.filter((change) => change.status === 'NodeVersionStatusActive' && change.by === 'checks')).toHaveLength(1);
    } finally {
      await server.stop();
      await database.close();
    }
  }, 120000);
});
