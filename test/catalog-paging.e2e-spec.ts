import { DownloadCounter } from '../src/nodes/download-counter';
import { createPublisherWithNode, PublisherFixture } from './support/registry-fixtures';
import { TestApp, TestUser } from './support/test-app';

/**
 * Paging and counting the whole catalog (docs/api-rules.md §3, §7): pages past the
 * middle are walked from the end of the catalog index, and `total` is the
 * count the catalog-count triggers keep. Both are checked against the
 * database's own answer over the whole catalog, so a wrong backward offset
 * or a count a write forgot shows up here, on either database.
 */
describe('Catalog paging and counting (docs/api-rules.md §3, §7)', () => {
  let t: TestApp;
  let admin: TestUser;
  const fixtures: PublisherFixture[] = [];

  /** The listed ids in the listing's order, and how many nodes are listed, as one query of the database sees them. */
  async function reference(): Promise<string[]> {
    const rows = await t.dataSource.query<{ id: string }[]>(
      `SELECT "id" FROM "nodes" WHERE "status" = 'NodeStatusActive' ORDER BY "search_ranking" DESC, "downloads" DESC, "id" ASC`,
    );
    return rows.map(({ id }) => id);
  }

  /** The kept count and a fresh count, in one statement (one snapshot). */
  async function counts(): Promise<{ kept: number; counted: number }> {
    const [row] = await t.dataSource.query<{ kept: number | string; counted: number | string }[]>(
      `SELECT (SELECT "listed" FROM "catalog_counts") AS "kept", (SELECT COUNT(*) FROM "nodes" WHERE "status" = 'NodeStatusActive') AS "counted"`,
    );
    return { kept: Number(row.kept), counted: Number(row.counted) };
  }

  async function expectExactTotal(): Promise<void> {
    const { kept, counted } = await counts();
    expect(kept).toBe(counted);
    // With a token: the reply comes from the database, not from the read cache, which rows written here behind the
    // service's back do not empty.
    const res = await t.http.get('/nodes?limit=1').set(admin.auth).expect(200);
    expect(res.body.total).toBe(counted);
  }

  const setStatus = (f: PublisherFixture, status: string) =>
    t.http.put(`/publishers/${f.publisherId}/nodes/${f.nodeId}`).set(admin.auth).send({ status }).expect(200);

  beforeAll(async () => {
    t = await TestApp.start();
    admin = await t.createUser({ admin: true });
    // Rankings and downloads with ties, so the order depends on every key (ranking, downloads, then id).
    for (let i = 0; i < 14; i++) {
      const f = await createPublisherWithNode(t);
      fixtures.push(f);
      await t.http.put(`/publishers/${f.publisherId}/nodes/${f.nodeId}`).set(admin.auth).send({ search_ranking: i % 3 }).expect(200);
    }
    const counter = t.app.get(DownloadCounter);
    fixtures.forEach((f, i) => counter.count(f.nodeId, i % 4));
    await counter.flush();
  });
  afterAll(() => t?.close());

  it('answers every page, forward or walked from the end, as the database orders the whole catalog', async () => {
    const listed = await reference();
    const n = listed.length;
    expect(n).toBeGreaterThanOrEqual(fixtures.length);
    // Page sizes and pages around the first, the middle (where the walk changes direction) and the last page.
    for (const limit of [1, 2, 7, Math.ceil(n / 3), n - 1, n, n + 1].filter((limit) => limit <= 1000)) {
      const lastPage = Math.max(1, Math.ceil(n / limit));
      const middle = Math.ceil(lastPage / 2);
      const pages = new Set([1, 2, middle - 1, middle, middle + 1, lastPage - 1, lastPage, lastPage + 1].filter((page) => page >= 1));
      for (const page of pages) {
        const res = await t.http.get(`/nodes?page=${page}&limit=${limit}`).expect(200);
        expect({ limit, page, total: res.body.total, ids: res.body.nodes.map((node: { id: string }) => node.id) }).toEqual({
          limit,
          page,
          total: n,
          ids: listed.slice((page - 1) * limit, page * limit),
        });
      }
    }
  });

  it('keeps total exact through inserts, bans, deletions, reactivations and download counts', async () => {
    await expectExactTotal();
    const added = await createPublisherWithNode(t);
    await expectExactTotal();
    await setStatus(added, 'NodeStatusBanned');
    await expectExactTotal();
    await setStatus(added, 'NodeStatusDeleted');
    await expectExactTotal();
    await setStatus(added, 'NodeStatusActive');
    await expectExactTotal();
    // A status written again unchanged, and a write that leaves the status alone, count nothing.
    await setStatus(added, 'NodeStatusActive');
    await t.http.put(`/publishers/${added.publisherId}/nodes/${added.nodeId}`).set(added.owner.auth).send({ description: 'edited' }).expect(200);
    await expectExactTotal();
    const counter = t.app.get(DownloadCounter);
    counter.count(added.nodeId, 3);
    counter.count(fixtures[0].nodeId, 2);
    await counter.flush();
    await expectExactTotal();
  });

  it('keeps total exact through rows inserted and deleted several at a time, listed or not', async () => {
    const before = await counts();
    const copies = fixtures.slice(0, 3).map((f) => f.nodeId);
    const copied = await t.dataSource.query<Record<string, unknown>[]>(`SELECT * FROM "nodes" WHERE "id" IN ('${copies.join("', '")}')`);
    const columns = Object.keys(copied[0]);
    const list = columns.map((column) => `"${column}"`).join(', ');
    const copyOf = (column: string) =>
      column === 'id'
        ? `'bulk-' || "id"`
        : column === 'normalized_id'
          ? `LOWER('bulk-' || "id")`
          : column === 'status'
            ? `CASE WHEN "id" = '${copies[0]}' THEN 'NodeStatusBanned' ELSE "status" END`
            : `"${column}"`;
    // One INSERT of three rows (one of them banned), then one DELETE of all three.
    await t.dataSource.query(`INSERT INTO "nodes" (${list}) SELECT ${columns.map(copyOf).join(', ')} FROM "nodes" WHERE "id" IN ('${copies.join("', '")}')`);
    expect(await counts()).toEqual({ kept: before.kept + 2, counted: before.counted + 2 });
    await expectExactTotal();
    await t.dataSource.query(`DELETE FROM "nodes" WHERE "id" LIKE 'bulk-%'`);
    expect(await counts()).toEqual(before);
    await expectExactTotal();
  });
});
