import { createPublisherWithNode } from './support/registry-fixtures';
import { TestApp, unique } from './support/test-app';

interface ListedNode {
  id: string;
  name: string;
  description?: string;
  author?: string;
  search_ranking: number;
  downloads: number;
}

/** Reads the whole catalog, page by page (the suites may share one PostgreSQL database). */
async function wholeCatalog(t: TestApp, query = ''): Promise<ListedNode[]> {
  const nodes: ListedNode[] = [];
  for (let page = 1; ; page++) {
    const res = await t.http.get(`/nodes?limit=1000&page=${page}${query}`).expect(200);
    nodes.push(...(res.body.nodes as ListedNode[]));
    if (page >= res.body.totalPages) return nodes;
  }
}

/**
 * The search and ordering semantics of §3, checked against a reference
 * computed here over the whole catalog, for terms the trigram indexes answer
 * (three characters or more) and terms they cannot (one or two): the
 * indexes must change the cost of a search, never its answer.
 */
describe('Catalog search and ordering on indexes (docs/api-rules.md §3, §7)', () => {
  let t: TestApp;
  const tag = unique('srch').replace('-', '');

  beforeAll(async () => {
    t = await TestApp.start();
    const texts = [
      { name: `Upscaler ${tag}`, description: 'Upscales images', author: 'Ann' },
      { name: `ÉMILE ${tag}`, description: 'Ünïcode names', author: 'Émile' },
      { name: `Plain ${tag}`, description: 'Nothing to see: 100% and a_b', author: 'Zed' },
      { name: `Upscale-lite ${tag}`, author: 'Ann' },
      { name: `ab ${tag}`, description: 'AB short' },
      // The two characters toLowerCase turns into ASCII ones (KELVIN SIGN into k, İ into i̇), each in a node with no
      // other k or i: an ASCII term finds them only by lower-casing the column (see containsAsciiOnSqlite), and
      // only where it can match what they become (a k; an i that ends the term, as U+0307 follows it).
      { name: `\u212Aelvo ${tag}`, description: 'Cold', author: 'Lord' },
      { name: `Qu\u0130zmr ${tag}`, description: 'Town', author: 'Ayla' },
    ];
    const admin = await t.createUser({ admin: true });
    for (const [index, fields] of texts.entries()) {
      const f = await createPublisherWithNode(t, fields);
      await t.http.put(`/publishers/${f.publisherId}/nodes/${f.nodeId}`).set(admin.auth).send({ search_ranking: index % 2 }).expect(200);
    }
    // First in the listing and without the tag: a page found by walking the catalog must skip it.
    const other = await createPublisherWithNode(t, { name: 'Other node', description: 'Unrelated' });
    await t.http.put(`/publishers/${other.publisherId}/nodes/${other.nodeId}`).set(admin.auth).send({ search_ranking: 3 }).expect(200);
  });
  afterAll(() => t?.close());

  const contains = (node: ListedNode, term: string) =>
    [node.id, node.name, node.description, node.author].some((text) => text?.toLowerCase().includes(term.toLowerCase()));
  const byListingOrder = (a: ListedNode, b: ListedNode) =>
    b.search_ranking - a.search_ranking || b.downloads - a.downloads || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

  it('lists the catalog in ranking, downloads, id order', async () => {
    const catalog = await wholeCatalog(t);
    expect(catalog.map((node) => node.id)).toEqual([...catalog].sort(byListingOrder).map((node) => node.id));
  });

  it.each(['upscal', 'UPSCALE', 'émile', 'ÜNÏ', 'ann', 'ab', 'a', '100%', 'a_b', 'see: 1', 'zed', 'kelvo', 'KELVO', 'elvo', 'i', 'qui', 'QUI', 'no-such-text-anywhere'])(
    'answers search=%s exactly as a substring match over id, name, description and author would',
    async (term) => {
      const expected = (await wholeCatalog(t)).filter((node) => contains(node, term)).sort(byListingOrder);
      const found = await wholeCatalog(t, `&search=${encodeURIComponent(term)}`);
      expect(found.map((node) => node.id)).toEqual(expected.map((node) => node.id));
      const page = await t.http.get(`/nodes?search=${encodeURIComponent(term)}&limit=1`).expect(200);
      expect(page.body.total).toBe(expected.length);
    },
  );

  it.each([tag, 'upscal', 'ann', 'AB'])('pages search=%s as slices of its whole answer, however each page is found', async (term) => {
    // Small pages are found by walking the catalog in order against the kept matches (where the catalog is
    // small enough for that to pay, as on SQLite's own database here), deeper ones by the filter (on SQLite
    // through the trigram table or not): every page must be the same slice either way.
    const whole = (await wholeCatalog(t, `&search=${encodeURIComponent(term)}`)).map((node) => node.id);
    expect(whole.length).toBeGreaterThan(0);
    for (const limit of [1, 2, 3]) {
      for (let page = 1; page <= Math.ceil(whole.length / limit) + 1; page++) {
        const res = await t.http.get(`/nodes?search=${encodeURIComponent(term)}&limit=${limit}&page=${page}`).expect(200);
        expect({ limit, page, total: res.body.total, ids: res.body.nodes.map((node: ListedNode) => node.id) }).toEqual({
          limit,
          page,
          total: whole.length,
          ids: whole.slice((page - 1) * limit, page * limit),
        });
      }
    }
  });

  // Each name is found by every term beside it, by search and by relevance. toLowerCase makes a word's last Σ a ς
  // and PostgreSQL's LOWER keeps a written ς, so a folding done apart on each side (the term in JavaScript, or
  // each by its database's LOWER) missed one spelling or another; İ folds differently on each database, so only
  // the name itself is asked there.
  it.each([
    ['Ελληνικός', ['Ελληνικός', 'ΕΛΛΗΝΙΚΌΣ', 'ελληνικόσ', 'ΕΛΛΗΝΙΚ']],
    ['ΟΔΗΓΟΣΤΗΣ', ['ΟΔΗΓΟΣΤΗΣ', 'οδηγοστης', 'ΟΔΗΓΟΣ', 'οδηγος', 'οδηγοσ']],
    ['İZMİR', ['İZMİR']],
  ])('finds %s by each spelling of it', async (word, terms) => {
    const f = await createPublisherWithNode(t, { name: `${word} ${tag}x` });
    for (const term of terms) {
      const search = encodeURIComponent(`${term}`);
      const found = await t.http.get(`/nodes?search=${search}&limit=100`).expect(200);
      const ranked = await t.http.get(`/nodes/search?search=${search}&limit=100`).expect(200);
      expect({ term, ids: found.body.nodes.map((node: ListedNode) => node.id), ranked: ranked.body.nodes[0]?.id }).toEqual({ term, ids: [f.nodeId], ranked: f.nodeId });
    }
  });

  it('finds a node by its own id and keeps the index in step with renames', async () => {
    const f = await createPublisherWithNode(t, { name: `Before ${tag}` });
    expect((await wholeCatalog(t, `&search=${encodeURIComponent(f.nodeId.toUpperCase())}`)).map((node) => node.id)).toEqual([f.nodeId]);
    await t.http.put(`/publishers/${f.publisherId}/nodes/${f.nodeId}`).set(f.owner.auth).send({ name: `Renamed ${tag}qq` }).expect(200);
    expect(await wholeCatalog(t, `&search=Before ${tag}`)).toEqual([]);
    expect((await wholeCatalog(t, `&search=${tag}QQ`)).map((node) => node.id)).toEqual([f.nodeId]);
  });
});
