import { mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { ClientRequest, request } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DownloadCounter } from '../src/nodes/download-counter';
import { ArchiveReview } from '../src/nodes/review/archive-review';
import { NodeEntity } from '../src/nodes/entities/node.entity';
import { reviewed, uploadArchive } from './support/archive-uploads';
import { addVersions, createPublisherWithNode } from './support/registry-fixtures';
import { TestDatabase, waitFor } from './support/server-process';
import { TestApp } from './support/test-app';
import { makeZip } from './support/zip';

/**
 * docs/api-rules.md §6: installs are counted in batches, and the counts still pending
 * are written when the application shuts down gracefully. The database is a
 * file (or TEST_DATABASE_URL), read again after the app has closed.
 */
describe('Download counts at a graceful shutdown', () => {
  const dir = mkdtempSync(join(tmpdir(), 'registry-downloads-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes every install counted since the last flush before the app closes, one answered during the shutdown included', async () => {
    const INSTALLS = 7;
    const databaseUrl = process.env.TEST_DATABASE_URL ?? `sqlite:${join(dir, 'downloads.sqlite')}`;
    const t = await TestApp.start({ DATABASE_URL: databaseUrl });
    let nodeId = '';
    try {
      const f = await createPublisherWithNode(t);
      nodeId = f.nodeId;
      await addVersions(t, f, '1.0.0');
      await uploadArchive(t, f, '1.0.0', makeZip({ '__init__.py': 'v1' }));
      // Only an active version installs: its archive's review first (docs/api-rules.md §10).
      expect((await reviewed(t, f, '1.0.0')).status).toBe('NodeVersionStatusActive');

      // Stop the periodic flush (as shutdown itself does, at its end): only the shutdown flush can write these counts.
      await t.app.get(DownloadCounter).stopPeriodicFlush();
      for (let i = 0; i < INSTALLS - 1; i++) await t.http.get(`/nodes/${f.nodeId}/install`).expect(200);
      const pending = await t.dataSource.getRepository(NodeEntity).findOneByOrFail({ id: f.nodeId });
      expect(pending.downloads).toBe(0);
      // One more during the shutdown, from a before-shutdown hook: those of the workers may take seconds (they finish
      // what they started), and the server answers requests until they end.
      const review = t.app.get(ArchiveReview);
      const stopReview = review.beforeApplicationShutdown.bind(review);
      review.beforeApplicationShutdown = async () => {
        await stopReview();
        await t.http.get(`/nodes/${f.nodeId}/install`).expect(200);
      };
    } finally {
      await t.close();
    }

    const database = await TestDatabase.open(databaseUrl);
    try {
      const node = await database.dataSource.getRepository(NodeEntity).findOneByOrFail({ id: nodeId });
      expect(node.downloads).toBe(INSTALLS);
    } finally {
      await database.close();
    }
  });

  it('goes on writing counts each second while the shutdown waits for a slow request', async () => {
    const databaseUrl = process.env.TEST_DATABASE_URL ?? `sqlite:${join(dir, 'drain.sqlite')}`;
    const t = await TestApp.start({ DATABASE_URL: databaseUrl });
    const database = await TestDatabase.open(databaseUrl);
    let slow: ClientRequest | undefined;
    try {
      const f = await createPublisherWithNode(t);
      // A body still arriving holds the HTTP server open, and with it the end of the shutdown.
      const { port } = t.app.getHttpServer().address() as AddressInfo;
      slow = request({ port, method: 'PUT', path: `/publishers/${f.publisherId}`, headers: { ...f.owner.auth, 'Content-Type': 'application/json', 'Content-Length': '100' } });
      slow.on('error', () => undefined);
      slow.write('{"description":"');
      await once(slow, 'socket');
      // Received and waiting for the rest of its body (the guards have let it through) before the shutdown starts.
      await new Promise((resolve) => setTimeout(resolve, 300));
      let closedEarly = false;
      const closed = t.close().then(() => (closedEarly = true));
      // Counted once the shutdown has begun (its first hooks run at once): only a flush during the drain writes them.
      await new Promise((resolve) => setTimeout(resolve, 100));
      t.app.get(DownloadCounter).count(f.nodeId, 3);
      await waitFor(async () => (await database.dataSource.getRepository(NodeEntity).findOneByOrFail({ id: f.nodeId })).downloads === 3, 5000, 'the counts');
      expect(closedEarly).toBe(false);
      slow.destroy();
      await closed;
    } finally {
      slow?.destroy();
      await database.close();
    }
  });
});
