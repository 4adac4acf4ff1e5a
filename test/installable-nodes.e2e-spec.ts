import { createHash } from 'node:crypto';
import { DownloadCounter } from '../src/nodes/download-counter';
import { NodeVersionEntity } from '../src/nodes/entities/node-version.entity';
import { NodeEntity } from '../src/nodes/entities/node.entity';
import { UploadUrls } from '../src/nodes/upload-urls';
import { expectNoNulls } from './support/no-nulls';
import { installNode, publishWithCli, syncCatalog } from './support/registry-clients';
import { addVersions, createPublisherWithNode, PublisherFixture } from './support/registry-fixtures';
import { TestApp, unique } from './support/test-app';
import { makeZip, refusedZips } from './support/zip';
import { filesUnder } from './support/files';
import { reviewed, uploadArchive } from './support/archive-uploads';


const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('Installable nodes: the public registry clients, unchanged (docs/api-rules.md §6)', () => {
  const MAX_BYTES = 64 * 1024;
  let t: TestApp;
  let baseUrl: string;
  let f: PublisherFixture;

  beforeAll(async () => {
    t = await TestApp.start({ ARCHIVE_MAX_BYTES: String(MAX_BYTES) });
    baseUrl = await t.listen();
  });
  beforeEach(async () => {
    f = await createPublisherWithNode(t);
  });
  afterAll(() => t?.close());

  /** The archives stored since `before` (the store is shared by the suite's tests). */
  const storedSince = (before: string[]) => filesUnder(t.storageDir).filter((file) => !before.includes(file));
  const versionsUrl = (fixture = f) => `/publishers/${fixture.publisherId}/nodes/${fixture.nodeId}/versions`;
  const cliPublish = (fixture: PublisherFixture, version: string, node: object = {}) =>
    t.http.post(versionsUrl(fixture)).send({
      personal_access_token: fixture.member.token,
      node: { id: fixture.nodeId, ...node },
      node_version: { version, dependencies: ['numpy'] },
    });
  const flushDownloads = () => t.app.get(DownloadCounter).flush();
  const downloadsOf = async (nodeId: string) => (await t.dataSource.getRepository(NodeEntity).findOneByOrFail({ id: nodeId })).downloads;

  /**
   * A version with an archive (a clean pack), uploaded by a member with a bearer token: `uploaded`, the upload's
   * reply (the version pending), and `version`, the version once its archive's review made it active.
   */
  async function versionWithArchive(fixture: PublisherFixture, version: string, content = `# ${fixture.nodeId} ${version}\n`) {
    await addVersions(t, fixture, version);
    const zip = makeZip({ '__init__.py': content });
    const uploaded = await uploadArchive(t, fixture, version, zip);
    const reviewedVersion = await reviewed(t, fixture, version);
    expect(reviewedVersion.status).toBe('NodeVersionStatusActive');
    return { zip, uploaded, version: reviewedVersion };
  }

  it('publishes as the CLI does, then the package manager crawls, installs latest and pinned, and downloads the same bytes', async () => {
    const nodeId = unique('cli-node');
    // Clean packs (an __init__.py at the root), so that their review makes the versions active.
    const first = makeZip({ '__init__.py': '', 'nodes.py': 'v1' });
    const second = makeZip({ '__init__.py': '', 'nodes.py': 'v2' });
    const request = {
      token: f.member.token,
      publisherId: f.publisherId,
      node: { id: nodeId, description: 'Published by the CLI', icon: '', name: 'CLI Node', license: 'MIT', repository: 'https://example.com/cli-node' },
      version: { version: '1.0.0', dependencies: ['torch'] },
    };
    const one = await publishWithCli(baseUrl, request, first);
    expect(one.publish.status).toBe(201);
    expect(one.publish.body.node_version).toMatchObject({ version: '1.0.0', status: 'NodeVersionStatusPending', dependencies: ['torch'] });
    expect(one.publish.body.signedUrl).toMatch(new RegExp(`^${baseUrl}/uploads/[0-9a-f-]{36}\\?expires=\\d+&signature=[\\w-]+$`));
    // The upload stores the archive; the version stays pending until its review (docs/api-rules.md §10).
    expect(one.upload).toEqual({
      status: 200,
      body: expect.objectContaining({
        version: '1.0.0',
        status: 'NodeVersionStatusPending',
        status_reason: 'its archive is being checked',
        downloadUrl: `${baseUrl}/archives/${sha256(first)}.zip`,
      }),
    });
    expectNoNulls(one.publish.body);
    expectNoNulls(one.upload?.body);
    const two = await publishWithCli(baseUrl, { ...request, version: { version: '1.1.0', dependencies: [] } }, second);
    expect([two.publish.status, two.upload?.status]).toEqual([201, 200]);
    expect(two.upload?.body.status).toBe('NodeVersionStatusPending');
    for (const version of ['1.0.0', '1.1.0']) expect((await reviewed(t, { ...f, nodeId }, version)).status).toBe('NodeVersionStatusActive');

    const catalog = await syncCatalog(baseUrl);
    expect(catalog.get(nodeId)).toEqual({
      id: nodeId,
      name: 'CLI Node',
      description: 'Published by the CLI',
      repository: 'https://example.com/cli-node',
      publisherName: 'Publisher',
      version: '1.1.0',
      createdAt: expect.any(String),
    });
    // A node with no installable version has no latest_version key: "nightly" to the package manager.
    expect(catalog.get(f.nodeId)?.version).toBe('nightly');

    const latest = await installNode(baseUrl, nodeId);
    expect(latest.info).toMatchObject({ version: '1.1.0', dependencies: [], deprecated: false });
    expect(latest.info.downloadUrl).toBe(`${baseUrl}/archives/${sha256(second)}.zip`);
    expect(latest.archive.equals(second)).toBe(true);
    const pinned = await installNode(baseUrl, nodeId, '1.0.0');
    expect(pinned.info).toMatchObject({ version: '1.0.0', dependencies: ['torch'] });
    expect(pinned.archive.equals(first)).toBe(true);

    await flushDownloads();
    expect(await downloadsOf(nodeId)).toBe(2);
    const versions = await t.http.get(`/nodes/${nodeId}/versions?statuses=NodeVersionStatusActive`).expect(200);
    expect(versions.body.map((v: { version: string }) => v.version)).toEqual(['1.1.0', '1.0.0']);
    expect((await t.http.get(`/nodes/${nodeId}/versions?statuses=NodeVersionStatusPending`).expect(200)).body).toEqual([]);
  });

  it('crawls every page with the package manager parameters, and the whole catalog in one page of 1000', async () => {
    const ids = [f.nodeId];
    for (let i = 0; i < 3; i++) ids.push((await createPublisherWithNode(t)).nodeId);
    const crawled = await syncCatalog(baseUrl);
    for (const id of ids) expect(crawled.has(id)).toBe(true);
    const whole = await t.http.get('/nodes?page=1&limit=1000&comfyui_version=v0.3.60&form_factor=git-linux&app_version=1.0').expect(200);
    // On PostgreSQL the suites share one database, so the catalog may hold more than this suite's nodes.
    expect(whole.body).toMatchObject({ page: 1, limit: 1000, total: crawled.size, totalPages: Math.ceil(crawled.size / 1000) });
    expect(whole.body.nodes).toHaveLength(Math.min(crawled.size, 1000));
    const tooMany = await t.http.get('/nodes?limit=1001').expect(400);
    expect(tooMany.body.message).toContain('limit');
    const unknown = await t.http.get('/nodes?comfyui_versions=v1').expect(400);
    expect(unknown.body.message).toContain('comfyui_versions');
    await t.http.get(`/nodes?form_factor=${'x'.repeat(65)}`).expect(400);
  });

  it('serves one version by id or semver, and filters versions by repeated statuses', async () => {
    const ids = await addVersions(t, f, '1.0.0', '2.0.0');
    const bySemver = await t.http.get(`/nodes/${f.nodeId}/versions/2.0.0`).expect(200);
    expect(bySemver.body).toMatchObject({ id: ids['2.0.0'], version: '2.0.0', node_id: f.nodeId });
    expectNoNulls(bySemver.body);
    expect((await t.http.get(`/nodes/${f.nodeId}/versions/${ids['1.0.0']}`).expect(200)).body.version).toBe('1.0.0');
    await t.http.get(`/nodes/${f.nodeId}/versions/3.0.0`).expect(404);
    await cliPublish(f, '3.0.0').expect(201);

    const statuses = async (query: string) =>
      (await t.http.get(`/nodes/${f.nodeId}/versions${query}`).expect(200)).body.map((v: { version: string }) => v.version);
    expect(await statuses('?statuses=NodeVersionStatusPending')).toEqual(['3.0.0']);
    expect(await statuses('?statuses=NodeVersionStatusActive')).toEqual(['2.0.0', '1.0.0']);
    expect(await statuses('?statuses=NodeVersionStatusActive&statuses=NodeVersionStatusPending')).toEqual(['3.0.0', '2.0.0', '1.0.0']);
    expect(await statuses('')).toEqual(['3.0.0', '2.0.0', '1.0.0']);
    const bad = await t.http.get(`/nodes/${f.nodeId}/versions?statuses=Active`).expect(400);
    expect(bad.body.message).toContain('statuses');

    const admin = await t.createUser({ admin: true });
    await t.http.put(`${versionsUrl()}/1.0.0`).set(admin.auth).send({ status: 'NodeVersionStatusDeleted', status_reason: 'withdrawn' }).expect(200);
    await t.http.get(`/nodes/${f.nodeId}/versions/1.0.0`).expect(404);
    expect(await statuses('')).toEqual(['3.0.0', '2.0.0']);
    // Deleted versions are listed to admins only, however asked for.
    expect(await statuses('?statuses=NodeVersionStatusDeleted')).toEqual([]);
    expect(await statuses('?statuses=NodeVersionStatusDeleted&statuses=NodeVersionStatusActive')).toEqual(['2.0.0']);
    const asAdmin = await t.http.get(`/nodes/${f.nodeId}/versions?statuses=NodeVersionStatusDeleted`).set(admin.auth).expect(200);
    expect(asAdmin.body.map((v: { version: string }) => v.version)).toEqual(['1.0.0']);
  });

  it('answers 404 in the contract body for whatever cannot be installed', async () => {
    const admin = await t.createUser({ admin: true });
    await addVersions(t, f, '0.9.0'); // active, but without an archive
    const expect404 = async (path: string, message: string) => {
      const res = await t.http.get(path).expect(404);
      expect(res.body).toEqual({ statusCode: 404, error: 'Not Found', message: expect.stringContaining(message), requestId: expect.any(String) });
    };
    await expect404(`/nodes/${f.nodeId}/install?version=0.9.0`, 'no archive');
    await expect404(`/nodes/no-such-node/install`, 'no-such-node');
    await expect404(`/nodes/${f.nodeId}/install?version=9.9.9`, "version '9.9.9'");
    await cliPublish(f, '2.0.0').expect(201);
    await expect404(`/nodes/${f.nodeId}/install?version=2.0.0`, 'NodeVersionStatusPending');
    // Flagged by its checks (not a pack: no __init__.py): only active versions install (docs/api-rules.md §10).
    await addVersions(t, f, '1.5.0');
    await uploadArchive(t, f, '1.5.0', makeZip({ 'nodes.py': `# ${f.nodeId}\n` }));
    expect(await reviewed(t, f, '1.5.0')).toMatchObject({ status: 'NodeVersionStatusFlagged', status_reason: expect.stringContaining('not-a-pack') });
    await expect404(`/nodes/${f.nodeId}/install?version=1.5.0`, 'NodeVersionStatusFlagged');
    await versionWithArchive(f, '1.0.0');
    await t.http.put(`${versionsUrl()}/1.0.0`).set(admin.auth).send({ status: 'NodeVersionStatusBanned', status_reason: 'malware' }).expect(200);
    await expect404(`/nodes/${f.nodeId}/install?version=1.0.0`, 'NodeVersionStatusBanned');
    // A deleted version does not exist, as GET /nodes/{id}/versions/{v} says.
    await versionWithArchive(f, '1.1.0');
    await t.http.delete(`${versionsUrl()}/1.1.0`).set(f.member.auth).expect(204);
    await expect404(`/nodes/${f.nodeId}/install?version=1.1.0`, `version '1.1.0' of node '${f.nodeId}' not found`);
    // The latest version is now 0.9.0, which has no archive.
    await expect404(`/nodes/${f.nodeId}/install`, "version '0.9.0'");
    const bare = await createPublisherWithNode(t);
    await expect404(`/nodes/${bare.nodeId}/install`, 'no installable version');

    const deleted = await createPublisherWithNode(t);
    await versionWithArchive(deleted, '1.0.0');
    await t.http.put(`/publishers/${deleted.publisherId}/nodes/${deleted.nodeId}`).set(admin.auth).send({ status: 'NodeStatusDeleted' }).expect(200);
    await expect404(`/nodes/${deleted.nodeId}/install`, deleted.nodeId);
    await flushDownloads();
    expect(await downloadsOf(f.nodeId)).toBe(0);
    expect(await downloadsOf(deleted.nodeId)).toBe(0);
  });

  it('counts 200 concurrent installs exactly, visible within 2 seconds, and never caches an install', async () => {
    const { zip } = await versionWithArchive(f, '1.0.0');
    // A HEAD looks without downloading: it counts nothing.
    expect((await fetch(`${baseUrl}/nodes/${f.nodeId}/install`, { method: 'HEAD' })).status).toBe(200);
    const replies = await Promise.all(Array.from({ length: 200 }, () => fetch(`${baseUrl}/nodes/${f.nodeId}/install`)));
    expect(replies.map((reply) => reply.status)).toEqual(Array(200).fill(200));
    expect(replies[0].headers.get('cache-control')).toBe('no-store');
    const body = (await replies[0].json()) as { downloadUrl: string };
    expectNoNulls(body);
    expect(body.downloadUrl).toBe(`${baseUrl}/archives/${sha256(zip)}.zip`);
    // Without an explicit flush: the counter's own timer must make them visible within 2 s.
    const deadline = Date.now() + 2000;
    let downloads = 0;
    while ((downloads = await downloadsOf(f.nodeId)) < 200 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(downloads).toBe(200);
    expect((await t.http.get(`/nodes/${f.nodeId}`).expect(200)).body.downloads).toBe(200);

    // Never a 304 (supertest: fetch would add `Cache-Control: no-cache`, which turns validation off by itself).
    const etag = replies[0].headers.get('etag') ?? '';
    await t.http.get(`/nodes/${f.nodeId}/install`).set('If-None-Match', etag).expect(200);
    await flushDownloads();
    expect(await downloadsOf(f.nodeId)).toBe(201);
  });

  describe('publishing with the body token', () => {
    it('creates the node when missing, with the node fields given, and a pending version', async () => {
      const nodeId = unique('new-node');
      const res = await t.http
        .post(`/publishers/${f.publisherId}/nodes/${nodeId}/versions`)
        .send({
          personal_access_token: f.owner.token,
          node: { id: nodeId, name: 'New', description: 'd', license: 'MIT', repository: 'https://example.com/r', icon: '' },
          node_version: { version: '0.1.0', dependencies: ['pillow'] },
        })
        .expect(201);
      expect(Object.keys(res.body).sort()).toEqual(['node_version', 'signedUrl']);
      const node = await t.http.get(`/nodes/${nodeId}`).expect(200);
      expect(node.body).toMatchObject({ id: nodeId, name: 'New', description: 'd', license: 'MIT', repository: 'https://example.com/r' });
      expect('latest_version' in node.body).toBe(false);
      expect('icon' in node.body).toBe(false);
      expectNoNulls(res.body);
      const stored = await t.dataSource.getRepository(NodeVersionEntity).findOneByOrFail({ nodeId, version: '0.1.0' });
      expect(stored).toMatchObject({ status: 'NodeVersionStatusPending', dependencies: ['pillow'], downloadUrl: null, archiveSha256: null });
    });

    it('creates a missing node once when several publishes of it race, and every version (PostgreSQL: the losers of the insert patch it)', async () => {
      const nodeId = unique('raced-node');
      const versions = ['1.0.0', '1.1.0', '1.2.0', '1.3.0', '1.4.0', '1.5.0'];
      const replies = await Promise.all(
        versions.map((version) =>
          t.http.post(`/publishers/${f.publisherId}/nodes/${nodeId}/versions`).send({ personal_access_token: f.owner.token, node: { id: nodeId }, node_version: { version } }),
        ),
      );
      expect(replies.map((res) => res.status)).toEqual(versions.map(() => 201));
      const stored = await t.dataSource.getRepository(NodeVersionEntity).findBy({ nodeId });
      expect(stored.map((version) => version.version).sort()).toEqual(versions);
    });

    it('applies the given node fields to an existing node as a merge-patch', async () => {
      await t.http.put(`/publishers/${f.publisherId}/nodes/${f.nodeId}`).set(f.owner.auth).send({ author: 'Ann', tags: ['x'] }).expect(200);
      await cliPublish(f, '1.0.0', { description: 'from the CLI' }).expect(201);
      const node = await t.http.get(`/nodes/${f.nodeId}`).expect(200);
      expect(node.body).toMatchObject({ name: 'A node', description: 'from the CLI', author: 'Ann', tags: ['x'] });
    });

    it('refuses a wrong, revoked or missing token (401), a non-member (403), a foreign node id (409), and writes nothing', async () => {
      const nodeId = unique('never');
      const body = (token: unknown) => ({ personal_access_token: token, node: { id: nodeId }, node_version: { version: '1.0.0', dependencies: [] } });
      const post = (payload: object) => t.http.post(`/publishers/${f.publisherId}/nodes/${nodeId}/versions`).send(payload);
      const wrong = await post(body('nrt_not-a-real-token')).expect(401);
      expect(wrong.body).toMatchObject({ statusCode: 401, error: 'Unauthorized' });
      const missing = await post({ node: { id: nodeId }, node_version: { version: '1.0.0' } }).expect(401);
      expect(missing.headers['www-authenticate']).toBe('Bearer');
      await post(body('')).expect(401);
      const outsider = await t.createUser();
      const forbidden = await post(body(outsider.token)).expect(403);
      expect(forbidden.body.message).toContain(f.publisherId);
      // The bearer form without a header is still 401.
      await t.http.post(versionsUrl()).send({ version: '1.0.0' }).expect(401);
      await t.http.get(`/nodes/${nodeId}`).expect(404);

      const other = await createPublisherWithNode(t);
      const taken = await t.http
        .post(`/publishers/${f.publisherId}/nodes/${other.nodeId}/versions`)
        .send({ personal_access_token: f.owner.token, node: { id: other.nodeId }, node_version: { version: '1.0.0' } })
        .expect(409);
      expect(taken.body.message).toContain('already taken');
      const mismatch = await cliPublish(f, '1.0.0', { id: 'another-id' }).expect(400);
      expect(mismatch.body.message).toContain('does not match');
      expect(await t.dataSource.getRepository(NodeVersionEntity).countBy({ nodeId: other.nodeId })).toBe(0);
      expect(await t.dataSource.getRepository(NodeVersionEntity).countBy({ nodeId: f.nodeId })).toBe(0);
    });

    it('takes a bearer header when the CLI body has no token, and refuses a node id the rules do not allow (400, nothing written)', async () => {
      const viaHeader = await t.http
        .post(versionsUrl())
        .set(f.member.auth)
        .send({ node: { id: f.nodeId }, node_version: { version: '1.0.0' } })
        .expect(201);
      expect(viaHeader.body.node_version.status).toBe('NodeVersionStatusPending');
      for (const badId of ['bad%20id!', `${'x'.repeat(101)}`, '-dash-first']) {
        const res = await t.http
          .post(`/publishers/${f.publisherId}/nodes/${badId}/versions`)
          .send({ personal_access_token: f.owner.token, node: {}, node_version: { version: '1.0.0' } })
          .expect(400);
        expect(res.body.message).toContain('node id');
        await t.http.get(`/nodes/${badId}`).expect(404);
      }
    });

    it('accepts a revoked token no more', async () => {
      const created = await t.http.post('/users/me/tokens').set(f.member.auth).send({ name: 'cli' }).expect(201);
      await t.http.delete(`/users/me/tokens/${created.body.id}`).set(f.member.auth).expect(204);
      await t.http
        .post(versionsUrl())
        .send({ personal_access_token: created.body.token, node: { id: f.nodeId }, node_version: { version: '1.0.0' } })
        .expect(401);
    });

    it('refuses forged, expired, reused and malformed upload URLs with 403, non-zips with 400, another content type with 415, oversized archives with 413, leaving nothing behind', async () => {
      const published = await cliPublish(f, '1.0.0').expect(201);
      const signedUrl = new URL(published.body.signedUrl as string);
      const path = `${signedUrl.pathname}${signedUrl.search}`;
      const versionId = published.body.node_version.id as string;
      const zip = makeZip({ '__init__.py': `# ${f.nodeId}\n`, 'a.py': 'x' });
      const put = (url: string, body: Buffer | string, type = 'application/zip') => t.http.put(url).set('Content-Type', type).send(body);
      const pending = async () => (await t.dataSource.getRepository(NodeVersionEntity).findOneByOrFail({ id: versionId })).status;
      const before = filesUnder(t.storageDir);

      const forged = path.replace(/signature=[\w-]+/, 'signature=AAAA');
      expect((await put(forged, zip).expect(403)).body.message).toContain('signature');
      await put(signedUrl.pathname, zip).expect(403);
      const otherVersion = path.replace(versionId, '00000000-0000-4000-8000-000000000000');
      await put(otherVersion, zip).expect(403);
      const expired = new URL(await t.app.get(UploadUrls).sign(versionId, baseUrl, Date.now() - 3601_000));
      expect((await put(`${expired.pathname}${expired.search}`, zip).expect(403)).body.message).toContain('expired');
      expect((await put(path, 'not a zip at all', 'application/zip').expect(400)).body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
      await put(path, zip, 'application/json').expect(415);
      // Another parameter is refused as on every route (docs/api-rules.md §1), before the URL is used.
      expect((await put(`${path}&x=1`, zip).expect(400)).body.message).toContain('property x should not exist');
      // A repeated one is no signature this service made.
      await put(`${path}&signature=AAAA`, zip).expect(403);
      const oversized = Buffer.concat([zip, Buffer.alloc(MAX_BYTES)]);
      expect((await put(path, oversized).expect(413)).body.statusCode).toBe(413);
      expect(await pending()).toBe('NodeVersionStatusPending');
      expect(storedSince(before)).toEqual([]);

      const uploaded = await put(path, zip).expect(200);
      expect(uploaded.body).toMatchObject({ id: versionId, status: 'NodeVersionStatusPending', downloadUrl: expect.stringContaining(`/archives/${sha256(zip)}.zip`) });
      expect(storedSince(before)).toHaveLength(1);
      // Used once an archive is stored, while its checks run and after (docs/api-rules.md §10).
      expect((await put(path, makeZip({ 'b.py': 'y' })).expect(403)).body.message).toContain('already been used');
      expect((await reviewed(t, f, '1.0.0')).status).toBe('NodeVersionStatusActive');
      expect((await put(path, makeZip({ 'c.py': 'z' })).expect(403)).body.message).toContain('already been used');
      expect(storedSince(before)).toHaveLength(1);
      expect((await t.http.get(`/nodes/${f.nodeId}`).expect(200)).body.latest_version.version).toBe('1.0.0');
    });
  });

  it('says why an upload URL is no longer valid once its version was deleted before the archive came', async () => {
    const published = await cliPublish(f, '1.0.0').expect(201);
    const signedUrl = new URL(published.body.signedUrl as string);
    await t.http.delete(`${versionsUrl()}/1.0.0`).set(f.member.auth).expect(204);
    const refused = await t.http.put(`${signedUrl.pathname}${signedUrl.search}`).set('Content-Type', 'application/zip').send(makeZip({ 'a.py': 'x' })).expect(403);
    expect(refused.body.message).toBe('upload URL is no longer valid (its version was deleted)');
  });

  describe('an upload that starts like a zip but no zip reader can read (docs/api-rules.md §6)', () => {
    it.each(Object.entries(refusedZips()))(
      '%s: 400 in the error shape at the signed URL and the member route, nothing stored, the version still pending and its URL still usable',
      async (_, bytes) => {
        const published = await cliPublish(f, '1.0.0').expect(201);
        const signedUrl = new URL(published.body.signedUrl as string);
        const path = `${signedUrl.pathname}${signedUrl.search}`;
        const versionId = published.body.node_version.id as string;
        const before = filesUnder(t.storageDir);

        for (const upload of [
          () => t.http.put(path).set('Content-Type', 'application/zip').send(bytes),
          () => t.http.put(`${versionsUrl()}/1.0.0/archive`).set(f.member.auth).set('Content-Type', 'application/zip').send(bytes),
        ]) {
          const res = await upload().expect(400);
          expect(res.body).toEqual({
            statusCode: 400,
            error: 'Bad Request',
            message: expect.stringMatching(/^the archive is not a readable zip file: \S/),
            requestId: res.headers['x-request-id'],
          });
        }
        expect(storedSince(before)).toEqual([]);
        await t.http.get(`/archives/${sha256(bytes)}.zip`).expect(404);
        const version = await t.dataSource.getRepository(NodeVersionEntity).findOneByOrFail({ id: versionId });
        expect(version).toMatchObject({ status: 'NodeVersionStatusPending', downloadUrl: null, archiveSha256: null });

        const zip = makeZip({ '__init__.py': `# ${f.nodeId}\n` });
        const uploaded = await t.http.put(path).set('Content-Type', 'application/zip').send(zip).expect(200);
        expect(uploaded.body).toMatchObject({ status: 'NodeVersionStatusPending', downloadUrl: expect.stringContaining(`/archives/${sha256(zip)}.zip`) });
        expect((await reviewed(t, f, '1.0.0')).status).toBe('NodeVersionStatusActive');
      },
    );
  });

  describe('archive upload by a member (bearer)', () => {
    it('sets the downloadUrl, activates a pending version once its archive is checked, and refuses non-members and anonymous callers before reading', async () => {
      const before = filesUnder(t.storageDir);
      const { zip, uploaded, version } = await versionWithArchive(f, '1.0.0');
      const downloadUrl = `${baseUrl}/archives/${sha256(zip)}.zip`;
      expect(uploaded).toMatchObject({ version: '1.0.0', status: 'NodeVersionStatusPending', status_reason: 'its archive is being checked', downloadUrl });
      expect(version).toMatchObject({ version: '1.0.0', status: 'NodeVersionStatusActive', downloadUrl });

      await cliPublish(f, '2.0.0').expect(201);
      const replaced = makeZip({ '__init__.py': '', 'new.py': 'z' });
      const stored = await t.http.put(`${versionsUrl()}/2.0.0/archive`).set(f.owner.auth).set('Content-Type', 'application/zip').send(replaced).expect(200);
      expect(stored.body.status).toBe('NodeVersionStatusPending');
      expect((await reviewed(t, f, '2.0.0')).status).toBe('NodeVersionStatusActive');
      expect((await installNode(baseUrl, f.nodeId)).archive.equals(replaced)).toBe(true);

      const outsider = await t.createUser();
      await t.http.put(`${versionsUrl()}/1.0.0/archive`).set(outsider.auth).set('Content-Type', 'application/zip').send(makeZip({ 'evil.py': 'e' })).expect(403);
      await t.http.put(`${versionsUrl()}/1.0.0/archive`).set('Content-Type', 'application/zip').send(makeZip({ 'anon.py': 'a' })).expect(401);
      await t.http.put(`${versionsUrl()}/9.9.9/archive`).set(f.owner.auth).set('Content-Type', 'application/zip').send(makeZip({ 'never.py': 'n' })).expect(404);
      expect(storedSince(before)).toHaveLength(2);
    });
  });

  describe('GET /nodes?timestamp= (incremental sync)', () => {
    it('lists only nodes whose row or versions changed after the instant: updates, new versions, version edits, deprecations and archive uploads', async () => {
      const changes = {
        updated: await createPublisherWithNode(t),
        versionEdited: await createPublisherWithNode(t),
        newVersion: await createPublisherWithNode(t),
        deprecated: await createPublisherWithNode(t),
        uploaded: await createPublisherWithNode(t),
        untouched: await createPublisherWithNode(t),
      };
      await addVersions(t, changes.versionEdited, '1.0.0');
      await addVersions(t, changes.deprecated, '1.0.0');
      await addVersions(t, changes.uploaded, '1.0.0');
      await new Promise((resolve) => setTimeout(resolve, 20));
      const since = new Date().toISOString();
      await new Promise((resolve) => setTimeout(resolve, 20));

      await t.http.put(`/publishers/${changes.updated.publisherId}/nodes/${changes.updated.nodeId}`).set(changes.updated.owner.auth).send({ description: 'new' }).expect(200);
      await addVersions(t, changes.newVersion, '1.0.0');
      // A changelog edit cannot move the latest version: the write that touches no latest-version rule.
      await t.http.put(`${versionsUrl(changes.versionEdited)}/1.0.0`).set(changes.versionEdited.member.auth).send({ changelog: 'edited' }).expect(200);
      await t.http.put(`${versionsUrl(changes.deprecated)}/1.0.0`).set(changes.deprecated.owner.auth).send({ deprecated: true }).expect(200);
      await t.http.put(`${versionsUrl(changes.uploaded)}/1.0.0/archive`).set(changes.uploaded.owner.auth).set('Content-Type', 'application/zip').send(makeZip({ 'x.py': 'x' })).expect(200);

      const res = await t.http.get('/nodes').query({ timestamp: since, limit: 1000 }).expect(200);
      const listed = res.body.nodes.map((node: { id: string }) => node.id).sort();
      const expected = [changes.updated, changes.versionEdited, changes.newVersion, changes.deprecated, changes.uploaded].map((c) => c.nodeId).sort();
      expect(listed).toEqual(expected);
      expect(res.body.total).toBe(5);
      const paged = await t.http.get('/nodes').query({ timestamp: since, limit: 3, page: 2 }).expect(200);
      expect(paged.body).toMatchObject({ total: 5, totalPages: 2, page: 2 });
      expect(paged.body.nodes).toHaveLength(2);
      expect((await t.http.get('/nodes').query({ timestamp: 'yesterday' }).expect(400)).body.message).toContain('timestamp');
      // ISO 8601, but no instant: refused rather than ignored (which would answer with the whole catalog).
      expect((await t.http.get('/nodes').query({ timestamp: '2024-W01-1' }).expect(400)).body.message).toContain('timestamp');
    });
  });
});
