import { freshPostgresDatabase } from './support/postgres';
import { reviewed, uploadArchive } from './support/archive-uploads';
import { addVersions, createPublisherWithNode, PublisherFixture } from './support/registry-fixtures';
import { TestApp, unique } from './support/test-app';
import { makeZip } from './support/zip';

/**
 * The migrations that dropped the reply text (1765000000000) and added
 * `homepage` (1765100000000), run on a database that has rows: undone to the
 * schema before them (the reply text rebuilt by the triggers' migrations) and
 * run again (with every migration after them), every node, version and review stays as it was.
 */
/** The timestamp of the migration that dropped the reply text. */
const DROP_REPLY_TEXT = 1765000000000;
/** The first of the migrations that add columns filled from the rows there. */
const NODE_PUBLISHER_NAMES = 1766200000000;

describe('Upgrading a database with rows', () => {
  let t: TestApp;
  // A database of its own on PostgreSQL: undoing migrations on the shared one would meet other suites' (an extension's).
  const fresh = freshPostgresDatabase('upgrade');

  beforeAll(async () => {
    t = await TestApp.start(fresh ? { DATABASE_URL: fresh.url } : {});
  });
  afterAll(async () => {
    await t.close();
    fresh?.drop();
  });

  /** The version once `zip`, uploaded as its archive, has been reviewed. */
  async function archiveReviewed(f: PublisherFixture, version: string, zip: Buffer): Promise<Record<string, unknown>> {
    await uploadArchive(t, f, version, zip);
    return reviewed(t, f, version);
  }

  const snapshot = async () => ({
    nodes: await t.dataSource.query(`SELECT "id", "name", "description", "latest_version_id", "rating", "downloads", "status" FROM "nodes" ORDER BY "id"`),
    versions: await t.dataSource.query(`SELECT "id", "node_id", "version", "deprecated", "status" FROM "node_versions" ORDER BY "id"`),
    listed: await t.dataSource.query(`SELECT "listed" FROM "catalog_counts"`),
  });
  const columnsOf = async (table: string): Promise<string[]> =>
    (await t.dataSource.createQueryRunner().getTable(table))?.columns.map((column) => column.name) ?? [];

  it('keeps every row through the reply-text and homepage migrations, down and up again', async () => {
    const f = await createPublisherWithNode(t, { description: 'kept' });
    await addVersions(t, f, '1.0.0', '1.1.0');
    await t.http.post(`/nodes/${f.nodeId}/reviews?star=3`).set(f.member.auth).expect(200);
    await createPublisherWithNode(t);
    const before = await snapshot();

    // Undone back to the schema before the reply text was dropped: that migration and every newer one.
    const undone = t.dataSource.migrations.filter((migration) => Number(/\d{13}$/.exec(migration.name ?? '')?.[0]) >= DROP_REPLY_TEXT);
    expect(undone.length).toBeGreaterThanOrEqual(2);
    for (const _migration of undone) await t.dataSource.undoLastMigration({ transaction: 'each' });
    expect(await columnsOf('nodes')).toEqual(expect.arrayContaining(['reply_head']));
    expect(await columnsOf('nodes')).not.toContain('homepage');
    const [{ text }] = await t.dataSource.query(`SELECT "reply_head" AS "text" FROM "nodes" WHERE "id" = '${f.nodeId}'`);
    expect(text).toContain('"description":"kept"');
    expect(await snapshot()).toEqual(before);

    await t.dataSource.runMigrations({ transaction: 'each' });
    expect(await columnsOf('nodes')).not.toContain('reply_head');
    expect(await columnsOf('node_versions')).not.toContain('reply_json');
    expect(await columnsOf('catalog_counts')).not.toContain('search_generation');
    expect(await snapshot()).toEqual(before);
    expect((await t.http.get(`/nodes/${f.nodeId}`).expect(200)).body).toMatchObject({ description: 'kept', rating: 3, latest_version: { version: '1.1.0' } });
  });

  it('fills the columns added since from the rows there: nodes’ copies of publisher names, the archives released', async () => {
    const f = await createPublisherWithNode(t);
    await addVersions(t, f, '1.0.0', '1.1.0', '1.2.0');
    // An archive its checks passed; one they blocked, whose version its member then deleted; one released, then replaced by a blocked one.
    const passed = await archiveReviewed(f, '1.0.0', makeZip({ 'pack/__init__.py': `# ${unique('passed')}\n` }));
    const blocked = await archiveReviewed(f, '1.1.0', makeZip({ 'README.md': `not a pack ${unique('blocked')}\n` }));
    const replaced = await archiveReviewed(f, '1.2.0', makeZip({ 'pack/__init__.py': `# ${unique('replaced')}\n` }));
    await archiveReviewed(f, '1.2.0', makeZip({ 'README.md': `not a pack ${unique('replacement')}\n` }));
    expect([passed.status, blocked.status, replaced.status]).toEqual(['NodeVersionStatusActive', 'NodeVersionStatusFlagged', 'NodeVersionStatusActive']);
    await t.http.delete(`/publishers/${f.publisherId}/nodes/${f.nodeId}/versions/1.1.0`).set(f.member.auth).expect(204);
    const downloads = async () =>
      Promise.all([passed, blocked, replaced].map(async (version) => (await t.http.get(new URL(String(version.downloadUrl)).pathname)).status));
    expect(await downloads()).toEqual([200, 404, 200]);

    const undone = t.dataSource.migrations.filter((migration) => Number(/\d{13}$/.exec(migration.name ?? '')?.[0]) >= NODE_PUBLISHER_NAMES);
    for (const _migration of undone) await t.dataSource.undoLastMigration({ transaction: 'each' });
    expect(await columnsOf('nodes')).not.toContain('publisher_name');
    await t.dataSource.runMigrations({ transaction: 'each' });
    const [{ copied }] = await t.dataSource.query(`SELECT "publisher_name" AS "copied" FROM "nodes" WHERE "id" = '${f.nodeId}'`);
    expect(copied).toBe((await t.http.get(`/publishers/${f.publisherId}`).expect(200)).body.name);
    // Which archive an earlier change to active released was not recorded: one replaced since is not known to be released.
    expect(await downloads()).toEqual([200, 404, 404]);
    // A version made active before status changes were recorded has none: while active, its archive is public still.
    await t.dataSource.query(`DELETE FROM "version_status_changes" WHERE "node_version_id" = '${String(passed.id)}'`);
    expect(await downloads()).toEqual([200, 404, 404]);
  });
});
