import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublisherWithNode, PublisherFixture } from './support/registry-fixtures';
import { TestApp, TestUser, unique } from './support/test-app';

/**
 * A search's matches are read once per search generation (the
 * search-generation migration's triggers raise it for every change a search
 * can see) and reused by later searches for the same term; their order is
 * read each time. Two instances share one database here: one searches, so
 * its matches are kept, the other changes the catalog, and the first must
 * answer the new matches and total at once. On SQLite both open the same
 * file; on PostgreSQL TEST_DATABASE_URL.
 */
describe('Search matches kept per search generation (CONTRACT §3, §7)', () => {
  let sqliteDir: string | undefined;
  let reader: TestApp;
  let writer: TestApp;
  let admin: TestUser;
  const term = unique('tot').replace('-', '');
  const fixtures: PublisherFixture[] = [];

  const total = async (search = term) => (await reader.http.get(`/nodes?search=${search}&limit=1`).expect(200)).body.total as number;
  const idsOfPage = (body: { nodes: { id: string }[] }) => body.nodes.map(({ id }) => id);
  /**
   * The search's whole answer, in the listing's order, checked against its
   * total and against its pages of one (small pages are found among the kept
   * matches, see pageOfMatches; a page of 100 here by the filter).
   */
  const found = async () => {
    const { body } = await reader.http.get(`/nodes?search=${term}&limit=100`).expect(200);
    expect(body.nodes).toHaveLength(body.total);
    const pages: string[] = [];
    for (let page = 1; page <= body.total; page++) {
      pages.push(...idsOfPage((await reader.http.get(`/nodes?search=${term}&limit=1&page=${page}`).expect(200)).body));
    }
    expect(pages).toEqual(idsOfPage(body));
    return idsOfPage(body);
  };
  const idsOf = (...list: PublisherFixture[]) => list.map(({ nodeId }) => nodeId).sort();
  const put = (f: PublisherFixture, fields: object) =>
    writer.http.put(`/publishers/${f.publisherId}/nodes/${f.nodeId}`).set(admin.auth).send(fields).expect(200);

  beforeAll(async () => {
    if (!process.env.TEST_DATABASE_URL) sqliteDir = await mkdtemp(join(tmpdir(), 'search-matches-'));
    const env: Record<string, string> = sqliteDir ? { DATABASE_URL: `sqlite:${join(sqliteDir, 'registry.db')}` } : {};
    writer = await TestApp.start(env);
    reader = await TestApp.start(env);
    admin = await writer.createUser({ admin: true });
    for (let i = 0; i < 3; i++) fixtures.push(await createPublisherWithNode(writer, { description: `Has ${term} inside` }));
    fixtures.push(await createPublisherWithNode(writer, { description: 'Nothing here' }));
  });
  afterAll(async () => {
    await reader?.close();
    await writer?.close();
    if (sqliteDir) await rm(sqliteDir, { recursive: true, force: true });
  });

  it('answers the new matches and total after every kind of change another instance makes', async () => {
    expect(await total()).toBe(3);
    expect(await total(term.toUpperCase())).toBe(3);

    await put(fixtures[0], { description: 'No longer' });
    expect(await total()).toBe(2);
    expect((await found()).sort()).toEqual(idsOf(fixtures[1], fixtures[2]));
    await put(fixtures[3], { name: `Named ${term}` });
    expect(await total()).toBe(3);
    await put(fixtures[1], { status: 'NodeStatusBanned' });
    expect(await total()).toBe(2);
    expect((await found()).sort()).toEqual(idsOf(fixtures[2], fixtures[3]));
    await put(fixtures[1], { status: 'NodeStatusActive' });
    expect(await total()).toBe(3);
    await put(fixtures[3], { name: 'Unnamed' });
    expect(await total()).toBe(2);
    await put(fixtures[3], { author: `By ${term}` });
    expect(await total()).toBe(3);
    const created = await createPublisherWithNode(writer, { author: `Author ${term}` });
    expect(await total()).toBe(4);
    await put(fixtures[2], { status: 'NodeStatusDeleted' });
    expect(await total()).toBe(3);
    expect((await found()).sort()).toEqual(idsOf(fixtures[1], fixtures[3], created));
  });

  it('keeps the matches across changes a search cannot see, and lists them in the order of the moment', async () => {
    const before = await total();
    const matches = await found();
    const generation = async () => String((await writer.dataSource.query<{ g: string | number }[]>(`SELECT "search_generation" AS "g" FROM "catalog_counts"`))[0].g);
    const seen = await generation();
    await put(fixtures[1], { search_ranking: 5, github_stars: 9, tags_admin: ['x'] });
    await writer.http.post(`/nodes/${fixtures[1].nodeId}/reviews?star=3`).set(admin.auth).expect(200);
    expect(await generation()).toBe(seen);
    expect(await total()).toBe(before);
    // Ranked first now, although the matches were kept from before.
    expect(await found()).toEqual([fixtures[1].nodeId, ...matches.filter((id) => id !== fixtures[1].nodeId)]);
  });
});
