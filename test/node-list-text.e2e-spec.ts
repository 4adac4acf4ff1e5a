import { DownloadCounter } from '../src/nodes/download-counter';
import { NodeEntity } from '../src/nodes/entities/node.entity';
import { reviewed, versionOf } from './support/archive-uploads';
import { expectNoNulls } from './support/no-nulls';
import { TestApp, TestUser, unique } from './support/test-app';
import { makeZip } from './support/zip';

/**
 * A catalog page and GET /nodes/{id} both show a node through its one mapper
 * (toNodeDto), whether read from the database or from the read cache; a
 * field shown by one and not the other, or a cached reply that outlives a
 * write, fails here. A page is compared, as text, with the node replies it lists:
 * nodes with every optional field absent and with every one set, text that
 * JSON has to escape, translations, a fractional rating, a deprecated latest
 * version, no latest version, and publishers with and without
 * their optional fields; and again after every kind of write changed them.
 * On both databases.
 */
describe('Catalog page text (GET /nodes) equals each node reply (GET /nodes/{id})', () => {
  let t: TestApp;
  let admin: TestUser;
  let owner: TestUser;
  let full: string;
  let rich: string;
  const marker = unique('pagetext');
  const tricky = 'Quotes " and \\ backslash, tab\t, newline\n, control \u0001, é ü 字, emoji 😀, line sep \u2028, </script>';

  async function node(publisherId: string, fields: Record<string, unknown>): Promise<string> {
    const id = unique('Text');
    await t.http
      .post(`/publishers/${publisherId}/nodes`)
      .set(owner.auth)
      .send({ id, name: `${marker} ${id}`, ...fields })
      .expect(201);
    return id;
  }

  async function version(publisherId: string, nodeId: string, fields: Record<string, unknown>): Promise<string> {
    // An archive elsewhere (downloadUrl) is an admin's to point at (docs/api-rules.md §10).
    const res = await t.http.post(`/publishers/${publisherId}/nodes/${nodeId}/versions`).set((fields.downloadUrl ? admin : owner).auth).send(fields).expect(201);
    return res.body.id as string;
  }

  beforeAll(async () => {
    t = await TestApp.start();
    admin = await t.createUser({ admin: true });
    owner = await t.createUser();
    const bare = unique('bare');
    full = unique('full');
    await t.http.post('/publishers').set(owner.auth).send({ id: bare, name: 'Bare' }).expect(201);
    await t.http
      .post('/publishers')
      .set(owner.auth)
      .send({ id: full, name: `Full ${tricky}`, description: tricky, website: 'https://full.example', support: 'help@full.example', source_code_repo: 'https://github.com/full/x', logo: 'https://full.example/logo.png' })
      .expect(201);

    await node(bare, {});
    rich = await node(full, {
      description: tricky,
      author: 'Zoë "Z" Author',
      category: 'image',
      license: 'LICENSE',
      icon: 'https://full.example/icon.png',
      banner_url: 'https://full.example/banner.png',
      repository: 'https://github.com/full/rich',
      homepage: 'https://full.example/docs?lang="en"',
      supported_os: ['linux', 'windows'],
      supported_accelerators: ['cuda'],
      supported_app_version: '>=0.3.0',
      supported_app_frontend_version: '>=1.2',
      tags: ['image', tricky],
      translations: { fr: { name: 'Nœud "riche"', description: tricky }, ja: { name: 'ノード' } },
    });
    await t.http
      .put(`/publishers/${full}/nodes/${rich}`)
      .set(admin.auth)
      .send({ tags_admin: ['flagged'], preempted_app_node_names: ['Old "node"'], search_ranking: 3, github_stars: 42, status_detail: `Reviewed: ${tricky}` })
      .expect(200);
    await version(full, rich, { version: '1.0.0' });
    await version(full, rich, {
      version: '1.2.0',
      changelog: tricky,
      dependencies: ['numpy', 'torch>=2.1'],
      supported_os: ['linux'],
      supported_accelerators: ['cuda', 'rocm'],
      supported_app_version: '>=0.3.0',
      supported_app_frontend_version: '>=1.0',
      tags: ['video'],
      downloadUrl: 'https://full.example/rich-1.2.0.zip',
    });
    // A fractional rating: (5 + 4 + 4) / 3.
    for (const stars of [5, 4, 4]) {
      const reviewer = await t.createUser();
      await t.http.post(`/nodes/${rich}/reviews?star=${stars}`).set(reviewer.auth).expect(200);
    }
    const counter = t.app.get(DownloadCounter);
    counter.count(rich, 7);
    await counter.flush();

    // Its only version deprecated: still its latest_version, shown deprecated.
    const deprecated = await node(full, { description: 'Deprecated only' });
    const only = await version(full, deprecated, { version: '0.1.0', changelog: 'first' });
    await t.http.put(`/publishers/${full}/nodes/${deprecated}/versions/${only}`).set(owner.auth).send({ deprecated: true }).expect(200);
    // A deprecated version under an active latest one.
    const mixed = await node(bare, { license: 'MIT' });
    const old = await version(bare, mixed, { version: '1.0.0' });
    await version(bare, mixed, { version: '2.0.0' });
    await t.http.put(`/publishers/${bare}/nodes/${mixed}/versions/${old}`).set(owner.auth).send({ deprecated: true }).expect(200);
  });
  afterAll(() => t?.close());

  /** The page of the test's nodes, checked to be their own replies joined, byte for byte. */
  async function expectPageOfReplies() {
    const page = await t.http.get(`/nodes?search=${marker}&limit=100`).expect(200);
    expect(page.headers['content-type']).toBe('application/json; charset=utf-8');
    const ids = (page.body.nodes as { id: string }[]).map(({ id }) => id);
    expect(ids).toHaveLength(4);
    const replies: string[] = [];
    for (const id of ids) {
      const single = await t.http.get(`/nodes/${id}`).expect(200);
      replies.push(single.text);
    }
    expect(page.text).toBe(`{"total":4,"nodes":[${replies.join(',')}],"page":1,"limit":100,"totalPages":1}`);
    return page;
  }

  it('writes every node of a page as its own GET /nodes/{id} sends it, byte for byte', async () => {
    const page = await expectPageOfReplies();
    // Fields without a value are left out, never null (docs/api-rules.md §6): the bare node has almost every column NULL.
    expectNoNulls(page.body);
    // The cases above are all there: the test cannot pass on nodes that lost their fields.
    expect(page.body.nodes.find((n: { id: string }) => n.id === rich)).toMatchObject({
      description: tricky,
      rating: 13 / 3,
      downloads: 7,
      translations: { fr: { description: tricky } },
      publisher: { description: tricky, logo: 'https://full.example/logo.png' },
      latest_version: { version: '1.2.0', changelog: tricky, downloadUrl: 'https://full.example/rich-1.2.0.zip', deprecated: false },
    });
    const latest = (page.body.nodes as { latest_version?: { deprecated: boolean } }[]).map((n) => n.latest_version?.deprecated);
    expect(latest.sort()).toEqual([false, false, true, undefined]);
  });

  it('writes the same bytes on every path to a page: a search, a sync with timestamp, and a page past the first', async () => {
    const all = await t.http.get(`/nodes?search=${marker}&limit=100`).expect(200);
    const nodes = all.body.nodes as { id: string }[];
    const second = await t.http.get(`/nodes?search=${marker}&limit=2&page=2`).expect(200);
    expect(second.body.nodes).toEqual(nodes.slice(2, 4));
    const since = new Date(Date.now() - 60 * 60 * 1000).toISOString();
    const sync = await t.http.get(`/nodes?timestamp=${encodeURIComponent(since)}&limit=1000`).expect(200);
    const synced = new Map((sync.body.nodes as { id: string }[]).map((n) => [n.id, n]));
    for (const n of nodes) expect(synced.get(n.id)).toEqual(n);
  });

  it('writes the same bytes on pages of the whole catalog, walked from its start and from its end', async () => {
    const { total } = (await t.http.get('/nodes?limit=1').expect(200)).body as { total: number };
    expect(total).toBeGreaterThanOrEqual(4);
    // One node a page: the first two are walked from the catalog's start, the last two from its end (see catalogPage).
    for (const page of [1, 2, total - 1, total]) {
      const res = await t.http.get(`/nodes?limit=1&page=${page}`).expect(200);
      const single = await t.http.get(`/nodes/${res.body.nodes[0].id}`).expect(200);
      expect(res.text).toBe(`{"total":${total},"nodes":[${single.text}],"page":${page},"limit":1,"totalPages":${total}}`);
    }
    const listed = new Map<string, unknown>();
    for (let page = 1; page <= Math.ceil(total / 1000); page++) {
      for (const n of (await t.http.get(`/nodes?limit=1000&page=${page}`).expect(200)).body.nodes) listed.set(n.id, n);
    }
    const searched = (await t.http.get(`/nodes?search=${marker}&limit=100`).expect(200)).body.nodes as { id: string }[];
    for (const n of searched) expect(listed.get(n.id)).toEqual(n);
  });

  it('keeps each node in step with its reply after each write that changes one thing it shows', async () => {
    const nodeUrl = `/publishers/${full}/nodes/${rich}`;
    const versionUrl = `${nodeUrl}/versions/1.2.0`;
    const put = (url: string, user: TestUser, body: Record<string, unknown>) => async () => {
      await t.http.put(url).set(user.auth).send(body).expect(200);
    };
    const ownerFields = {
      name: `${marker} renamed "again"`,
      description: null,
      author: 'Another',
      category: null,
      license: null,
      icon: null,
      banner_url: 'https://full.example/banner-2.png',
      repository: null,
      homepage: null,
      supported_os: ['macos'],
      supported_accelerators: [],
      supported_app_version: null,
      supported_app_frontend_version: '>=2',
      tags: [],
      translations: null,
    };
    const adminFields = { tags_admin: [], preempted_app_node_names: [], status_detail: null, search_ranking: 4 };
    // One column each, so a column the triggers do not watch leaves a stale text behind.
    const writes: [string, () => Promise<void>][] = [
      ...Object.entries(ownerFields).map(([field, value]): [string, () => Promise<void>] => [field, put(nodeUrl, owner, { [field]: value })]),
      ...Object.entries(adminFields).map(([field, value]): [string, () => Promise<void>] => [field, put(nodeUrl, admin, { [field]: value })]),
      [
        // Server-managed, with no route that writes it: any statement that does must keep the text in step.
        'github_stars',
        async () => {
          await t.dataSource.createQueryBuilder().update(NodeEntity).set({ githubStars: 43 }).where({ id: rich }).execute();
        },
      ],
      [
        'downloads',
        async () => {
          const counter = t.app.get(DownloadCounter);
          counter.count(rich, 5);
          await counter.flush();
        },
      ],
      // The latest version moves to a new one and back.
      [
        'a newer version',
        async () => {
          await version(full, rich, { version: '1.3.0', changelog: 'newer' });
        },
      ],
      ['the newer version deprecated', put(`${nodeUrl}/versions/1.3.0`, owner, { deprecated: true })],
      ['version changelog', put(versionUrl, owner, { changelog: null })],
      [
        'version status_reason',
        async () => {
          await put(versionUrl, admin, { status_reason: 'checked' })();
          expect((await versionOf(t, { nodeId: rich, owner }, '1.2.0')).status_reason).toBe('checked');
        },
      ],
      [
        // The version is pending until its archive is checked (docs/api-rules.md §10): the latest version moves back to 1.0.0.
        'version archive',
        async () => {
          const zip = makeZip({ '__init__.py': `class Blur:\n    FUNCTION = "run"\n\nNODE_CLASS_MAPPINGS = {"${marker} Blur": Blur}\n` });
          const uploaded = await t.http.put(`${versionUrl}/archive`).set(owner.auth).set('Content-Type', 'application/zip').send(zip).expect(200);
          expect(uploaded.body).toMatchObject({ status: 'NodeVersionStatusPending', status_reason: 'its archive is being checked' });
        },
      ],
      [
        // Written by the background review, not by a request: the page and the node reply must still agree.
        "the archive's review",
        async () => {
          expect(await reviewed(t, { nodeId: rich, owner }, '1.2.0')).toMatchObject({ status: 'NodeVersionStatusActive', app_node_extract_status: 'success' });
        },
      ],
    ];
    for (const [what, write] of writes) {
      await write();
      await expectPageOfReplies().catch((error: Error) => {
        throw new Error(`after a write of ${what}: ${error.message}`);
      });
    }

    // The writes took effect: the comparisons above were of changed nodes.
    const node = (await t.http.get(`/nodes/${rich}`).expect(200)).body;
    expect(node).toMatchObject({ name: ownerFields.name, author: 'Another', tags: [], supported_os: ['macos'], search_ranking: 4, github_stars: 43, downloads: 12 });
    for (const cleared of ['description', 'category', 'license', 'icon', 'repository', 'homepage', 'supported_app_version', 'translations', 'status_detail']) {
      expect(node).not.toHaveProperty(cleared);
    }
    expect(node.latest_version).toMatchObject({ version: '1.2.0', status: 'NodeVersionStatusActive', downloadUrl: expect.stringMatching(/\/archives\/[0-9a-f]{64}\.zip$/) });
    // The review's clean outcome replaced the admin's reason: a status change says why, and a clean pack needs no reason.
    expect(node.latest_version).not.toHaveProperty('status_reason');
    expect(node.latest_version).not.toHaveProperty('changelog');
  });
});
