import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DownloadCounter } from '../src/nodes/download-counter';
import { ArchiveReview } from '../src/nodes/review/archive-review';
import { NodeEntity } from '../src/nodes/entities/node.entity';
import { reviewed, uploadArchive } from './support/archive-uploads';
import { addVersions, createPublisherWithNode } from './support/registry-fixtures';
import { TestDatabase } from './support/server-process';
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

      // Stop the periodic flush (as shutdown itself does first): only the shutdown flush can write these counts.
      t.app.get(DownloadCounter).onModuleDestroy();
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
});
