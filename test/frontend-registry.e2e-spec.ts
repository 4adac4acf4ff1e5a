import { randomBytes } from 'node:crypto';
import { expectErrorBody } from './support/error-body';
import { expectNoNulls } from './support/no-nulls';
import { FrontendClient, FrontendNode } from './support/frontend-client';
import { holdCommits } from './support/commit-gate';
import { TestApp, TestUser, unique } from './support/test-app';

/** A random word of lowercase letters: search terms that only this run's nodes contain, even on a shared database. */
function randomWord(length: number): string {
  return [...randomBytes(length)].map((byte) => String.fromCharCode(97 + (byte % 26))).join('');
}

const ids = (nodes: FrontendNode[] | undefined) => (nodes ?? []).map((node) => node.id);

describe('The frontend registry surfaces (docs/api-rules.md §9)', () => {
  let t: TestApp;
  let frontend: FrontendClient;
  let admin: TestUser;
  let owner: TestUser;
  let stranger: TestUser;
  const publisherId = unique('front');
  const otherPublisherId = unique('front');
  const word = randomWord(10);
  /** Node ids by role in the fixtures below. */
  const n = {
    upscaler: `${word}-upscaler`,
    cudaOnly: `${word}-depth`,
    anywhere: `${word}-anywhere`,
    banned: `${word}-banned`,
    other: `${word}-other`,
  };

  async function createNode(publisher: string, user: TestUser, body: object): Promise<void> {
    await t.http.post(`/publishers/${publisher}/nodes`).set(user.auth).send(body).expect(201);
  }

  /** A version with its downloadUrl elsewhere: an admin's to add (docs/api-rules.md §10). */
  async function addVersion(nodeId: string, body: object): Promise<void> {
    await t.http.post(`/publishers/${publisherId}/nodes/${nodeId}/versions`).set(admin.auth).send(body).expect(201);
  }

  beforeAll(async () => {
    t = await TestApp.start();
    frontend = new FrontendClient(await t.listen());
    [admin, owner, stranger] = await Promise.all([t.createUser({ admin: true }), t.createUser(), t.createUser()]);
    await t.http.post('/publishers').set(owner.auth).send({ id: publisherId, name: 'Zeta Works' }).expect(201);
    await t.http.post('/publishers').set(owner.auth).send({ id: otherPublisherId, name: 'Alpha Labs' }).expect(201);
    // Created in this order, so newest first is the reverse.
    await createNode(publisherId, owner, { id: n.upscaler, name: `Upscaler ${word}`, repository: `https://github.com/acme/${word}-upscaler`, supported_os: ['POSIX :: Linux'] });
    await createNode(publisherId, owner, { id: n.cudaOnly, name: 'Depth tools', description: `works with ${word}`, supported_accelerators: ['GPU :: NVIDIA CUDA'] });
    await createNode(publisherId, owner, { id: n.anywhere, name: 'Anywhere', author: word, supported_os: ['OS Independent'] });
    await createNode(publisherId, owner, { id: n.banned, name: `${word} banned` });
    await createNode(otherPublisherId, owner, { id: n.other, name: `Other ${word}` });
    const download = (v: string) => `https://example.com/${word}/${v}.zip`;
    await addVersion(n.upscaler, { version: '1.0.0', supported_app_version: '>=0.3.0', supported_os: ['POSIX :: Linux', 'Microsoft :: Windows'], downloadUrl: download('1.0.0') });
    await addVersion(n.upscaler, { version: '2.0.0', supported_app_version: '>=0.4.0', supported_os: ['Microsoft :: Windows'], downloadUrl: download('2.0.0') });
    await addVersion(n.banned, { version: '1.0.0' });
    await t.http.put(`/publishers/${publisherId}/nodes/${n.banned}`).set(admin.auth).send({ status: 'NodeStatusBanned' }).expect(200);
  });

  afterAll(() => t.close());

  describe('packs by id, sort and filters (GET /nodes)', () => {
    it('lists only the ids asked for, ignoring case, in either spelling of the parameter', async () => {
      const { status, body } = await frontend.listAllNodes({ node_id: [n.upscaler.toUpperCase(), n.anywhere, 'no-such-node'] });
      expect(status).toBe(200);
      expect(ids(body.nodes).sort()).toEqual([n.anywhere, n.upscaler].sort());
      expect(body.total).toBe(2);
      const brackets = await frontend.listAllNodes({ 'node_id[]': [n.cudaOnly], node_id: [n.other] });
      expect(ids(brackets.body.nodes).sort()).toEqual([n.cudaOnly, n.other].sort());
    });

    it('refuses more than 100 ids and unknown sort fields with the error body', async () => {
      const tooMany = await frontend.listAllNodes({ node_id: Array.from({ length: 101 }, (_, i) => `n${i}`) });
      expectErrorBody(tooMany.body as Record<string, unknown>, 400, 'Bad Request');
      expect(JSON.stringify(tooMany.body)).toContain('at most 100');
      const unknownField = await frontend.listAllNodes({ sort: ['name', 'popularity;desc'] });
      expectErrorBody(unknownField.body as Record<string, unknown>, 400, 'Bad Request');
      expect(JSON.stringify(unknownField.body)).toContain("unknown sort field 'popularity'");
      const badDirection = await frontend.listAllNodes({ sort: 'name;sideways' });
      expect(badDirection.status).toBe(400);
    });

    it('sorts by each key in order, ties broken by id', async () => {
      const mine = [n.upscaler, n.cudaOnly, n.anywhere, n.other];
      const byName = await frontend.listAllNodes({ node_id: mine, sort: 'name' });
      expect(ids(byName.body.nodes)).toEqual([n.anywhere, n.cudaOnly, n.other, n.upscaler]);
      const newest = await frontend.listAllNodes({ node_id: mine, sort: 'created_at;desc' });
      expect(ids(newest.body.nodes)).toEqual([n.other, n.anywhere, n.cudaOnly, n.upscaler]);
      // Alpha Labs before Zeta Works; within Zeta Works, by name descending.
      const byPublisher = await frontend.listAllNodes({ node_id: mine, sort: ['publisher_id', 'name;desc'] });
      expect(ids(byPublisher.body.nodes)).toEqual([n.other, n.upscaler, n.cudaOnly, n.anywhere]);
      // A renamed publisher's nodes sort by the new name at once.
      await t.http.put(`/publishers/${otherPublisherId}`).set(owner.auth).send({ name: 'Zulu Labs' }).expect(200);
      const renamed = await frontend.listAllNodes({ node_id: mine, sort: ['publisher_name', 'name;desc'] });
      expect(ids(renamed.body.nodes)).toEqual([n.upscaler, n.cudaOnly, n.anywhere, n.other]);
      expect(renamed.body.nodes?.map((node) => node.publisher?.name)).toEqual(['Zeta Works', 'Zeta Works', 'Zeta Works', 'Zulu Labs']);
      await t.http.put(`/publishers/${otherPublisherId}`).set(owner.auth).send({ name: 'Alpha Labs' }).expect(200);
      await t.http.post(`/nodes/${n.cudaOnly}/reviews?star=5`).set(stranger.auth).expect(200);
      await t.http.post(`/nodes/${n.anywhere}/reviews?star=3`).set(stranger.auth).expect(200);
      const byRating = await frontend.listAllNodes({ node_id: mine, sort: ['rating;desc'], limit: 2, page: 1 });
      expect(ids(byRating.body.nodes)).toEqual([n.cudaOnly, n.anywhere]);
      const secondPage = await frontend.listAllNodes({ node_id: mine, sort: ['rating;desc'], limit: 2, page: 2 });
      // Both unrated: by id.
      expect(ids(secondPage.body.nodes)).toEqual([n.other, n.upscaler]);
      expect(secondPage.body).toMatchObject({ total: 4, page: 2, limit: 2, totalPages: 2 });
      // last_updated: a version's own change counts (a changelog edit writes only the version's row).
      await t.http.put(`/publishers/${publisherId}/nodes/${n.upscaler}/versions/1.0.0`).set(owner.auth).send({ changelog: 'edited' }).expect(200);
      const lastUpdated = await frontend.listAllNodes({ node_id: mine, sort: 'last_updated;desc', latest: true });
      expect(ids(lastUpdated.body.nodes)[0]).toBe(n.upscaler);
      for (const alias of ['total_install;desc', 'downloads', 'last_updated;desc', 'github_stars', 'search_ranking;desc', 'publisher_name']) {
        expect((await frontend.listAllNodes({ node_id: mine, sort: alias })).status).toBe(200);
      }
    });

    const onPostgres = process.env.TEST_DATABASE_URL ? it : it.skip;
    onPostgres('a rename while a node of the publisher is being created waits for it, and so reaches its copy of the name', async () => {
      const publisher = unique('rename');
      await t.http.post('/publishers').set(owner.auth).send({ id: publisher, name: 'Before' }).expect(201);
      const nodeId = `${word}-renamed`;
      const gate = await holdCommits(t.dataSource, 'nodes', `NEW."id" = '${nodeId}'`, 'INSERT');
      let rename: Promise<unknown> | undefined;
      let created: Promise<unknown> | undefined;
      try {
        created = t.http.post(`/publishers/${publisher}/nodes`).set(owner.auth).send({ id: nodeId, name: 'Renamed' }).expect(201).then();
        await gate.reached();
        // The node's row is written with the name it read, its commit held back: the rename comes now.
        rename = t.http.put(`/publishers/${publisher}`).set(owner.auth).send({ name: 'After' }).expect(200).then();
        await Promise.race([rename, new Promise((resolve) => setTimeout(resolve, 300))]);
      } finally {
        await gate.release();
      }
      await Promise.all([created, rename]);
      const [{ copied }] = await t.dataSource.query(`SELECT "publisher_name" AS "copied" FROM "nodes" WHERE "id" = $1`, [nodeId]);
      expect(copied).toBe('After');
    });

    it('filters by OS and accelerator family: the latest version decides, else the node', async () => {
      const mine = [n.upscaler, n.cudaOnly, n.anywhere, n.other];
      const found = async (params: Record<string, string>) => ids((await frontend.listAllNodes({ node_id: mine, ...params })).body.nodes).sort();
      // The upscaler's latest version (2.0.0) is Windows only; the node's own Linux does not count.
      for (const windows of ['windows', 'Windows', 'Microsoft :: Windows', 'win32']) {
        expect(await found({ supported_os: windows })).toEqual([n.upscaler, n.cudaOnly, n.anywhere, n.other].sort());
      }
      expect(await found({ supported_os: 'linux' })).toEqual([n.cudaOnly, n.anywhere, n.other].sort());
      expect(await found({ supported_accelerator: 'CUDA' })).toEqual(mine.slice().sort());
      expect(await found({ supported_accelerator: 'rocm' })).toEqual([n.upscaler, n.anywhere, n.other].sort());
      // A platform of no known family: only lists that support every platform.
      expect(await found({ supported_os: 'plan9' })).toEqual([n.cudaOnly, n.anywhere, n.other].sort());
      // However long: an unknown value is never a 400.
      expect(await found({ supported_os: `plan9 ${'x'.repeat(200)}`, supported_accelerator: 'y'.repeat(200) })).toEqual([n.anywhere, n.other].sort());
      expect(await found({ supported_os: 'linux', supported_accelerator: 'rocm' })).toEqual([n.anywhere, n.other].sort());
    });

    it('answers a stale or forged token as it answers no token (public reads never 401)', async () => {
      for (const token of ['nrt_revoked-or-never-issued', 'not even a token']) {
        const stale = frontend.signedIn(token);
        expect((await stale.listAllNodes({ node_id: n.anywhere, include_banned: true })).body.nodes?.map((node) => node.id)).toEqual([n.anywhere]);
        expect((await stale.searchNodes({ search: word })).status).toBe(200);
        expect((await stale.listNodesForPublisher(publisherId)).status).toBe(200);
        expect((await t.http.get(`/nodes/${n.anywhere}`).set('Authorization', `Bearer ${token}`)).status).toBe(200);
      }
    });

    it('lists banned nodes only for admins who ask', async () => {
      const params = { node_id: [n.banned, n.anywhere], include_banned: true };
      expect(ids((await frontend.listAllNodes(params)).body.nodes)).toEqual([n.anywhere]);
      expect(ids((await frontend.signedIn(stranger.token).listAllNodes(params)).body.nodes)).toEqual([n.anywhere]);
      const asAdmin = await frontend.signedIn(admin.token).listAllNodes(params);
      expect(ids(asAdmin.body.nodes).sort()).toEqual([n.anywhere, n.banned].sort());
      expect(asAdmin.body.nodes?.find((node) => node.id === n.banned)?.status).toBe('NodeStatusBanned');
    });

    it.each([
      ['v0.3.60-3-gabc123', 'git-linux', '1.0.0'],
      ['0.4.1', 'desktop-win', '2.0.0'],
      ['0.4.1', 'git-linux', '1.0.0'],
      ['0.4.1', 'other', '2.0.0'],
      ['0.2.0', 'desktop-win', '2.0.0'],
      ['0.4.1', 'desktop-mac', '2.0.0'],
      ['unknown', 'git-mac', '2.0.0'],
    ])('chooses the latest version for app %s on %s: %s', async (appVersion, formFactor, expected) => {
      const page = await frontend.listAllNodes({ node_id: n.upscaler, comfyui_version: appVersion, form_factor: formFactor });
      expect(page.body.nodes?.[0]?.latest_version?.version).toBe(expected);
      const install = await t.http.get(`/nodes/${n.upscaler}/install`).query({ comfyui_version: appVersion, form_factor: formFactor }).expect(200);
      expect(install.body.version).toBe(expected);
    });

    it('lets an explicit version win, and app_version stand for comfyui_version', async () => {
      const install = await t.http.get(`/nodes/${n.upscaler}/install`).query({ version: '2.0.0', comfyui_version: '0.3.5' }).expect(200);
      expect(install.body.version).toBe('2.0.0');
      const page = await frontend.listAllNodes({ node_id: n.upscaler, app_version: '0.3.9' });
      expect(page.body.nodes?.[0]?.latest_version?.version).toBe('1.0.0');
    });

    it('answers latest=true from the database, not the reply cache', async () => {
      const params = { node_id: n.other };
      expect((await frontend.listAllNodes(params)).body.nodes?.[0]?.name).toBe(`Other ${word}`);
      // Behind the service's back, so nothing tells the cache.
      await t.dataSource.query(`UPDATE nodes SET name = 'Renamed directly' WHERE id = '${n.other}'`);
      expect((await frontend.listAllNodes(params)).body.nodes?.[0]?.name).toBe(`Other ${word}`);
      expect((await frontend.listAllNodes({ ...params, latest: true })).body.nodes?.[0]?.name).toBe('Renamed directly');
      // ...and the fresh answer replaced the cached one.
      expect((await frontend.listAllNodes(params)).body.nodes?.[0]?.name).toBe('Renamed directly');
      await t.http.put(`/publishers/${otherPublisherId}/nodes/${n.other}`).set(owner.auth).send({ name: `Other ${word}` }).expect(200);
    });
  });

  describe('search (GET /nodes/search)', () => {
    it('orders by relevance: exact id, name prefix, a word of the name, the rest', async () => {
      const term = randomWord(9);
      await createNode(publisherId, owner, { id: `${term}-rest`, name: 'Unrelated', description: `mentions ${term}` });
      await createNode(publisherId, owner, { id: `word-a-${term}`, name: `Super ${term} pack` });
      // A word after punctuation is a word too; ties in §3's order (the id).
      await createNode(publisherId, owner, { id: `word-b-${term}`, name: `Image/${term}` });
      await createNode(publisherId, owner, { id: `word-c-${term}`, name: `Soft (${term})` });
      await createNode(publisherId, owner, { id: `prefix-${term}`, name: `${term}inator` });
      await createNode(publisherId, owner, { id: term, name: 'Exactly' });
      const { status, body } = await frontend.searchNodes({ search: term.toUpperCase(), page: 1, limit: 10 });
      expect(status).toBe(200);
      expectNoNulls(body);
      expect(ids(body.nodes)).toEqual([term, `prefix-${term}`, `word-a-${term}`, `word-b-${term}`, `word-c-${term}`, `${term}-rest`]);
      expect(body).toMatchObject({ total: 6, page: 1, limit: 10, totalPages: 1 });
    });

    it('finds close ids and names when a term of 4 or more characters matches nothing, and nothing for nonsense', async () => {
      const typo = `${word.slice(0, 5)}${word.slice(6)}`;
      const close = await frontend.searchNodes({ search: typo });
      expect(close.status).toBe(200);
      expect(ids(close.body.nodes)).toEqual(expect.arrayContaining([n.upscaler, n.cudaOnly]));
      expect(ids(close.body.nodes)).not.toContain(n.banned);
      expect(close.body.total).toBe(close.body.nodes?.length);
      const nonsense = await frontend.searchNodes({ search: randomWord(12) });
      expect(nonsense.body).toMatchObject({ nodes: [], total: 0 });
    });

    it('searches repository URLs and combines with the platform filters', async () => {
      const byRepository = await frontend.searchNodes({ repository_url_search: `ACME/${word}` });
      expect(ids(byRepository.body.nodes)).toEqual([n.upscaler]);
      const filtered = await frontend.searchNodes({ search: word, supported_os: 'linux' });
      expect(ids(filtered.body.nodes)).not.toContain(n.upscaler);
      expect(ids(filtered.body.nodes)).toEqual(expect.arrayContaining([n.cudaOnly, n.anywhere, n.other]));
      const banned = await frontend.signedIn(admin.token).searchNodes({ search: `${word} banned`, include_banned: true });
      expect(ids(banned.body.nodes)).toEqual([n.banned]);
      // Anonymous: the banned node matches nothing, so the close ids and names come instead, never the banned one.
      expect(ids((await frontend.searchNodes({ search: `${word} banned`, include_banned: true })).body.nodes)).not.toContain(n.banned);
    });

    it('refuses unknown parameters', async () => {
      expect((await frontend.searchNodes({ search: word, sort: 'name' })).status).toBe(400);
    });
  });

  describe("a publisher's page (GET /publishers/{id}/nodes)", () => {
    it('lists its nodes newest first, banned ones only for members and admins who ask', async () => {
      const anonymous = await frontend.listNodesForPublisher(publisherId);
      expect(anonymous.status).toBe(200);
      expectNoNulls(anonymous.body);
      const listed = ids(anonymous.body);
      expect(listed.slice(-3)).toEqual([n.anywhere, n.cudaOnly, n.upscaler]);
      expect(listed).not.toContain(n.banned);
      expect(anonymous.body[0]).toMatchObject({ publisher: { id: publisherId } });
      expect(ids((await frontend.listNodesForPublisher(publisherId, { include_banned: true })).body)).not.toContain(n.banned);
      expect(ids((await frontend.signedIn(stranger.token).listNodesForPublisher(publisherId, { include_banned: true })).body)).not.toContain(n.banned);
      expect(ids((await frontend.signedIn(owner.token).listNodesForPublisher(publisherId, { include_banned: true })).body)).toContain(n.banned);
      expect(ids((await frontend.signedIn(admin.token).listNodesForPublisher(publisherId, { include_banned: true })).body)).toContain(n.banned);
      expect(ids((await frontend.signedIn(owner.token).listNodesForPublisher(publisherId)).body)).not.toContain(n.banned);
    });

    it('is 404 for an unknown publisher', async () => {
      const missing = await frontend.listNodesForPublisher(unique('nobody'));
      expectErrorBody(missing.body as unknown as Record<string, unknown>, 404, 'Not Found');
    });
  });

  describe('bulk versions (POST /bulk/nodes/versions)', () => {
    it('answers each pair in request order', async () => {
      const pairs = [
        { node_id: n.upscaler.toUpperCase(), version: '2.0.0' },
        { node_id: n.upscaler, version: '9.9.9' },
        { node_id: 'no-such-node', version: '1.0.0' },
        { node_id: n.banned, version: '1.0.0' },
        { node_id: n.upscaler, version: '1.0.0' },
      ];
      const { status, body } = await frontend.getBulkNodeVersions(pairs);
      expect(status).toBe(200);
      expectNoNulls(body);
      expect(body.node_versions).toEqual([
        { identifier: pairs[0], status: 'success', node_version: expect.objectContaining({ node_id: n.upscaler, version: '2.0.0' }) },
        { identifier: pairs[1], status: 'not_found' },
        { identifier: pairs[2], status: 'not_found' },
        { identifier: pairs[3], status: 'error', error_message: 'node banned' },
        { identifier: pairs[4], status: 'success', node_version: expect.objectContaining({ version: '1.0.0' }) },
      ]);
      // A deleted version is as absent as one that never was.
      await t.http.delete(`/publishers/${publisherId}/nodes/${n.upscaler}/versions/1.0.0`).set(owner.auth).expect(204);
      expect((await frontend.getBulkNodeVersions([pairs[4]])).body.node_versions).toEqual([{ identifier: pairs[4], status: 'not_found' }]);
    });

    it.each([
      ['no pairs', { node_versions: [] }],
      ['101 pairs', { node_versions: Array.from({ length: 101 }, (_, i) => ({ node_id: `n${i}`, version: '1.0.0' })) }],
      ['a string', { node_versions: 'acme@1.0.0' }],
      ['a pair without a version', { node_versions: [{ node_id: 'acme' }] }],
      ['a pair that is an empty array', { node_versions: [[]] }],
      ['pairs in an array of their own', { node_versions: [[{ node_id: 'acme', version: '1.0.0' }]] }],
      ['no body key', {}],
    ])('refuses %s with 400', async (_case, body) => {
      const res = await t.http.post('/bulk/nodes/versions').send(body).expect(400);
      expectErrorBody(res.body, 400, 'Bad Request');
    });
  });

  describe('the missing-node lookup (GET /comfy-nodes/{name}/node)', () => {
    it('finds the pack whose latest version provides the class, and 404s an unknown class', async () => {
      const className = `${word}UpscaleNode`;
      await t.http
        .post(`/nodes/${n.upscaler}/versions/2.0.0/comfy-nodes`)
        .set(owner.auth)
        .send({ success: true, nodes: { [className]: { category: 'image/upscaling', return_types: '["IMAGE"]' } } })
        .expect(204);
      const found = await frontend.getNodeByComfyNodeName(className);
      expect(found.status).toBe(200);
      expect(found.body).toMatchObject({ id: n.upscaler, latest_version: { version: '2.0.0' } });
      const search = await frontend.searchNodes({ comfy_node_search: className.slice(2, 12).toUpperCase() });
      expect(ids(search.body.nodes)).toEqual([n.upscaler]);
      const missing = await frontend.getNodeByComfyNodeName(`${word}Nothing`);
      expectErrorBody(missing.body as unknown as Record<string, unknown>, 404, 'Not Found');
    });
  });
});
