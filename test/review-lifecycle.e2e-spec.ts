import { NodeEntity } from '../src/nodes/entities/node.entity';
import { reviewed, uploadArchive, versionOf } from './support/archive-uploads';
import { expectErrorBody } from './support/error-body';
import { expectNoNulls } from './support/no-nulls';
import { asBuffer } from './support/raw-http';
import { publishWithCli } from './support/registry-clients';
import { addVersions, createPublisherWithNode, PublisherFixture } from './support/registry-fixtures';
import { TestApp, TestUser, unique } from './support/test-app';
import { makeZip } from './support/zip';
import { craftZip, deflatedFill } from './support/zip-crafting';

/** A pack's entry module: one class, so extraction finds it. */
const PACK_INIT = 'from .nodes import Blur\nNODE_CLASS_MAPPINGS = {"Blur": Blur}\n';
const PACK_NODES = 'class Blur:\n    CATEGORY = "image"\n    FUNCTION = "run"\n    RETURN_TYPES = ("IMAGE",)\n';
const clean = (extra: Record<string, string> = {}) => makeZip({ 'pack/__init__.py': PACK_INIT, 'pack/nodes.py': PACK_NODES, ...extra });

/** An AWS access key id of the documented example's shape, split so that no scanner flags this file. */
const AWS_KEY = ['AKIA', 'IOSFODNN7EXAMPLE'].join('');

/** `body`, once checked to hold no null (docs/api-rules.md §6). */
function expectedWithoutNulls(body: unknown): unknown {
  expectNoNulls(body);
  return body;
}

describe('Review lifecycle (docs/api-rules.md §10)', () => {
  let t: TestApp;
  let baseUrl: string;
  let admin: TestUser;

  beforeAll(async () => {
    t = await TestApp.start();
    baseUrl = await t.listen();
    admin = await t.createUser({ admin: true });
  });
  afterAll(() => t.close());

  const reviewOf = async (f: PublisherFixture, version: string, user: TestUser = f.member) =>
    expectedWithoutNulls((await t.http.get(`/publishers/${f.publisherId}/nodes/${f.nodeId}/versions/${version}/review`).set(user.auth).expect(200)).body) as {
      status: string;
      status_reason?: string;
      findings: Array<Record<string, unknown>>;
      history: Array<{ status: string; reason?: string; at: string; by: string }>;
    };

  /** A node with a version made active by the bearer form, then given `zip` as its archive, once the review is over. */
  async function reviewedUpload(zip: Buffer) {
    const f = await createPublisherWithNode(t);
    await addVersions(t, f, '1.0.0');
    const uploaded = await uploadArchive(t, f, '1.0.0', zip);
    // Pending from the upload until the checks decide: never installable meanwhile.
    expect(uploaded.status).toBe('NodeVersionStatusPending');
    const version = await reviewed(t, f, '1.0.0');
    return { f, version, review: await reviewOf(f, '1.0.0') };
  }

  it('a clean pack published by the CLI is active within seconds and installs; its record shows the way there', async () => {
    const f = await createPublisherWithNode(t);
    const { publish, upload } = await publishWithCli(
      baseUrl,
      { token: f.member.token, publisherId: f.publisherId, node: { id: f.nodeId }, version: { version: '2.0.0', dependencies: [] } },
      clean(),
    );
    expect(publish.body.node_version).toMatchObject({ status: 'NodeVersionStatusPending', status_reason: expect.stringContaining('archive') });
    expect(upload?.body).toMatchObject({ status: 'NodeVersionStatusPending', status_reason: 'its archive is being checked' });
    await t.http.get(`/nodes/${f.nodeId}/install?version=2.0.0`).expect(404);
    expect(await reviewed(t, f, '2.0.0')).toMatchObject({ status: 'NodeVersionStatusActive', app_node_extract_status: 'success' });
    expect((await t.http.get(`/nodes/${f.nodeId}/install`).expect(200)).body.version).toBe('2.0.0');
    const review = await reviewOf(f, '2.0.0');
    expect(review).toEqual({ status: 'NodeVersionStatusActive', findings: [], history: expect.any(Array) });
    expect(review.history.map(({ status, by }) => ({ status, by }))).toEqual([
      { status: 'NodeVersionStatusPending', by: f.member.id },
      { status: 'NodeVersionStatusPending', by: 'checks' },
      { status: 'NodeVersionStatusActive', by: 'checks' },
    ]);
    // The signed URL was used once: a second PUT is refused even while the checks run.
    const again = await fetch(String(publish.body.signedUrl), { method: 'PUT', headers: { 'Content-Type': 'application/zip' }, body: clean() });
    expect(again.status).toBe(403);
  });

  it.each([
    [
      'a path climbing out of the archive',
      clean({ '../evil.py': 'print("x")\n' }),
      { code: 'unsafe-path', severity: 'block', file: '../evil.py' },
    ],
    [
      'a symbolic link',
      craftZip([
        { name: 'pack/__init__.py', content: PACK_INIT },
        { name: 'pack/nodes.py', content: PACK_NODES },
        { name: 'pack/secrets', content: '/etc/passwd', unixMode: 0o120777 },
      ]),
      { code: 'unsafe-path', severity: 'block', file: 'pack/secrets' },
    ],
    [
      'an entry of 16 MiB compressed about 1000:1',
      craftZip([
        { name: 'pack/__init__.py', content: PACK_INIT },
        { name: 'pack/nodes.py', content: PACK_NODES },
        { name: 'pack/model.bin', deflated: deflatedFill(16 * 1024 * 1024) },
      ]),
      { code: 'zip-bomb', severity: 'block', file: 'pack/model.bin' },
    ],
    ['no __init__.py at the root or in one top-level folder', makeZip({ 'README.md': 'no pack\n', 'src/a/__init__.py': '' }), { code: 'not-a-pack', severity: 'block' }],
    [
      'an AWS access key in a text file',
      clean({ 'pack/config.py': `# settings\nKEY = "${AWS_KEY}"\n` }),
      { code: 'credentials', severity: 'block', file: 'pack/config.py', line: 2 },
    ],
    [
      'exec of base64-decoded code',
      clean({ 'pack/loader.py': 'import base64\n\nexec(base64.b64decode("cHJpbnQoMSk="))\n' }),
      { code: 'obfuscated-exec', severity: 'review', file: 'pack/loader.py', line: 3 },
    ],
    [
      'an ELF binary',
      clean({ 'pack/lib/native.so': `\x7fELF\x02\x01\x01${'\0'.repeat(57)}` }),
      { code: 'native-binary', severity: 'review', file: 'pack/lib/native.so' },
    ],
  ])('%s: flagged, with the finding named, and not installable', async (_case, zip, expected) => {
    const { f, version, review } = await reviewedUpload(zip);
    expect(version.status).toBe('NodeVersionStatusFlagged');
    expect(version.status_reason).toContain(expected.code);
    expect(review.findings).toEqual(expect.arrayContaining([expect.objectContaining(expected)]));
    expect(review.status_reason).toBe(version.status_reason);
    expect(JSON.stringify(review)).not.toContain(AWS_KEY);
    expect(review.history.at(-1)).toMatchObject({ status: 'NodeVersionStatusFlagged', by: 'checks', reason: version.status_reason });
    const install = await t.http.get(`/nodes/${f.nodeId}/install?version=1.0.0`).expect(404);
    expect(install.body.message).toContain('NodeVersionStatusFlagged');
    // It was the latest version before the upload; now the node has none.
    expect((await t.http.get(`/nodes/${f.nodeId}`).expect(200)).body).not.toHaveProperty('latest_version');
  });

  it.each([
    ['a version in pyproject.toml that differs', clean({ 'pack/pyproject.toml': '[project]\nname = "pack"\nversion = "9.9.9"\n' }), 'version-mismatch'],
    ['no node classes', makeZip({ 'pack/__init__.py': '# nothing declared\n' }), 'no-node-classes'],
  ])('%s: active, with the note in its record', async (_case, zip, code) => {
    const { f, version, review } = await reviewedUpload(zip);
    expect(version.status).toBe('NodeVersionStatusActive');
    expect(review.findings).toEqual([expect.objectContaining({ code, severity: 'info' })]);
    expect(version.status_reason).toContain(code);
    await t.http.get(`/nodes/${f.nodeId}/install`).expect(200);
  });

  describe('admins', () => {
    it('queue the flagged, approve what awaits review, and cannot approve what checks blocked', async () => {
      const held = await reviewedUpload(clean({ 'pack/loader.py': 'import zlib, base64\nexec(zlib.decompress(base64.b64decode(b"eJwrKMrMK1EoSS0uUcjLL0nNUcjMSy0uTk1RBABnjQhv")))\n' }));
      const blocked = await reviewedUpload(clean({ 'pack/key.pem': '-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAK\n-----END RSA PRIVATE KEY-----\n' }));
      const queue = await t.http.get('/versions?statuses=NodeVersionStatusFlagged&limit=100').set(admin.auth).expect(200);
      expectNoNulls(queue.body);
      const queued = queue.body.versions.map((v: { node_id: string }) => v.node_id);
      expect(queued).toEqual(expect.arrayContaining([held.f.nodeId, blocked.f.nodeId]));
      // Oldest first.
      expect(queued.indexOf(held.f.nodeId)).toBeLessThan(queued.indexOf(blocked.f.nodeId));
      await t.http.get('/versions').set(held.f.owner.auth).expect(403);
      await t.http.get('/versions').expect(401);

      const decide = (f: PublisherFixture, body: object, user = admin) => t.http.put(`/admin/nodes/${f.nodeId}/versions/1.0.0`).set(user.auth).send(body);
      await decide(held.f, { status: 'NodeVersionStatusActive' }, held.f.owner).expect(403);
      expectErrorBody((await decide(held.f, { status: 'NodeVersionStatusPending', status_reason: 'again' }).expect(400)).body, 400, 'Bad Request');
      await decide(held.f, { status: 'NodeVersionStatusBanned' }).expect(400);
      await t.http.put(`/admin/nodes/${held.f.nodeId}/versions/9.9.9`).set(admin.auth).send({ status: 'NodeVersionStatusActive' }).expect(404);
      expect((await versionOf(t, held.f, '1.0.0')).status).toBe('NodeVersionStatusFlagged');

      const approved = await decide(held.f, { status: 'NodeVersionStatusActive', status_reason: 'decompresses a bundled script; reviewed' }).expect(200);
      expect(approved.body).toMatchObject({ status: 'NodeVersionStatusActive', status_reason: 'decompresses a bundled script; reviewed' });
      await t.http.get(`/nodes/${held.f.nodeId}/install`).expect(200);
      expect((await reviewOf(held.f, '1.0.0')).history.at(-1)).toMatchObject({ status: 'NodeVersionStatusActive', by: admin.id });

      const refused = await decide(blocked.f, { status: 'NodeVersionStatusActive' }).expect(409);
      expect(refused.body.message).toContain('blocked');
      await decide(blocked.f, { status: 'NodeVersionStatusBanned', status_reason: 'leaked a private key' }).expect(200);
      expect((await reviewOf(blocked.f, '1.0.0')).status).toBe('NodeVersionStatusBanned');
    });
  });

  it('a moderation through the version PUT is in the history too, and pending is not an admin\'s to set', async () => {
    const f = await createPublisherWithNode(t);
    await addVersions(t, f, '1.0.0');
    const path = `/publishers/${f.publisherId}/nodes/${f.nodeId}/versions/1.0.0`;
    await t.http.put(path).set(admin.auth).send({ status: 'NodeVersionStatusPending' }).expect(400);
    await t.http.put(path).set(admin.auth).send({ status: 'NodeVersionStatusBanned', status_reason: 'malware' }).expect(200);
    expect((await reviewOf(f, '1.0.0')).history.at(-1)).toMatchObject({ status: 'NodeVersionStatusBanned', reason: 'malware', by: admin.id });
  });

  it('a decision by either route changes the version\'s change time, not the node\'s row, and the node is listed as changed', async () => {
    const f = await createPublisherWithNode(t);
    await addVersions(t, f, '1.0.0');
    const nodeChangeTime = async () => (await t.dataSource.getRepository(NodeEntity).findOneByOrFail({ id: f.nodeId })).updatedAt.getTime();
    const unchanged = await nodeChangeTime();
    const changedSince = async (since: string) =>
      (await t.http.get(`/nodes?timestamp=${since}&limit=100`).expect(200)).body.nodes.map((node: { id: string }) => node.id);
    for (const decide of [
      () => t.http.put(`/publishers/${f.publisherId}/nodes/${f.nodeId}/versions/1.0.0`).set(admin.auth).send({ status: 'NodeVersionStatusBanned', status_reason: 'malware' }),
      () => t.http.put(`/admin/nodes/${f.nodeId}/versions/1.0.0`).set(admin.auth).send({ status: 'NodeVersionStatusActive', status_reason: 'cleared' }),
    ]) {
      const before = new Date().toISOString();
      // The filter is strictly after: a write stamped in the same millisecond would not be listed.
      await new Promise((resolve) => setTimeout(resolve, 2));
      await decide().expect(200);
      expect(await changedSince(before)).toContain(f.nodeId);
      expect(await nodeChangeTime()).toBe(unchanged);
    }
  });

  describe('what nothing may get past', () => {
    const aws = () => clean({ 'pack/config.py': `KEY = "${AWS_KEY}"\n` });
    /** A clean archive for the version, uploaded by `user`. */
    const archiveUpload = (f: PublisherFixture, user: TestUser, version = '1.0.0') =>
      t.http.put(`/publishers/${f.publisherId}/nodes/${f.nodeId}/versions/${version}/archive`).set(user.auth).set('Content-Type', 'application/zip').send(clean());

    it('a version blocked by its checks stays blocked: not through a ban and back, nor through a new archive', async () => {
      const { f } = await reviewedUpload(aws());
      const decide = (body: object) => t.http.put(`/admin/nodes/${f.nodeId}/versions/1.0.0`).set(admin.auth).send(body);
      await decide({ status: 'NodeVersionStatusBanned', status_reason: 'leaked a key' }).expect(200);
      // The refusals give what the checks found, not the reason the version has since (the ban's).
      const refused = await decide({ status: 'NodeVersionStatusActive' }).expect(409);
      expect(refused.body.message).toMatch(/blocked by its checks \(blocked: credentials in pack\/config\.py line 1.*\); publish a new version/);
      const oldRoute = t.http.put(`/publishers/${f.publisherId}/nodes/${f.nodeId}/versions/1.0.0`).set(admin.auth);
      await oldRoute.send({ status: 'NodeVersionStatusActive' }).expect(409);
      expect((await versionOf(t, f, '1.0.0')).status).toBe('NodeVersionStatusBanned');
      const upload = await archiveUpload(f, admin).expect(409);
      expect(upload.body.message).toMatch(/blocked by its checks \(blocked: credentials in pack\/config\.py line 1/);
      expect(upload.body.message).not.toContain('leaked a key');
      expect((await versionOf(t, f, '1.0.0')).status).toBe('NodeVersionStatusBanned');
    });

    it('an admin’s new archive does not clear what the checks blocked, nor revive a deleted version', async () => {
      const { f } = await reviewedUpload(aws());
      const blocked = await archiveUpload(f, admin).expect(409);
      expect(blocked.body.message).toContain('publish a new version');
      expect(await versionOf(t, f, '1.0.0')).toMatchObject({ status: 'NodeVersionStatusFlagged' });
      await t.http.get(`/nodes/${f.nodeId}/install?version=1.0.0`).expect(404);

      await addVersions(t, f, '1.0.1');
      await t.http.delete(`/publishers/${f.publisherId}/nodes/${f.nodeId}/versions/1.0.1`).set(f.member.auth).expect(204);
      const deleted = await archiveUpload(f, admin, '1.0.1').expect(409);
      expect(deleted.body.message).toContain('deleted');
      expect((await reviewOf(f, '1.0.1', admin)).status).toBe('NodeVersionStatusDeleted');
    });

    it('a flagged version takes no new archive from its members', async () => {
      const { f } = await reviewedUpload(aws());
      const res = await archiveUpload(f, f.member).expect(409);
      expect(res.body.message).toContain('publish a new version');
      expect((await versionOf(t, f, '1.0.0')).status).toBe('NodeVersionStatusFlagged');
    });

    it('no decision while the checks run', async () => {
      const f = await createPublisherWithNode(t);
      await addVersions(t, f, '1.0.0');
      // Stored, then checked in the background: decided before the checks are done, it would skip them.
      await uploadArchive(t, f, '1.0.0', aws());
      const early = await t.http.put(`/admin/nodes/${f.nodeId}/versions/1.0.0`).set(admin.auth).send({ status: 'NodeVersionStatusActive' });
      // 409 while pending ("being checked"); had the checks just finished, their block would refuse it too.
      expect(early.status).toBe(409);
      expect(await reviewed(t, f, '1.0.0')).toMatchObject({ status: 'NodeVersionStatusFlagged' });
    });

    it('entries the checks cannot read are refused at upload', async () => {
      const f = await createPublisherWithNode(t);
      await addVersions(t, f, '1.0.0');
      const bzip2 = craftZip([{ name: 'pack/__init__.py', content: PACK_INIT }, { name: 'pack/lib.so', content: 'BZh91AY&SY', method: 12 }]);
      const res = await t.http
        .put(`/publishers/${f.publisherId}/nodes/${f.nodeId}/versions/1.0.0/archive`)
        .set(f.member.auth)
        .set('Content-Type', 'application/zip')
        .send(bzip2)
        .expect(400);
      expect(res.body.message).toContain('method 12');
    });

    /** A CLI publish of version 3.0.0, and the upload of its signed URL once `meanwhile` has run: the upload's status and message. */
    async function uploadAfter(f: PublisherFixture, meanwhile: () => Promise<unknown>): Promise<{ status: number; message: string }> {
      const publish = await t.http
        .post(`/publishers/${f.publisherId}/nodes/${f.nodeId}/versions`)
        .send({ personal_access_token: f.member.token, node: { id: f.nodeId }, node_version: { version: '3.0.0' } })
        .expect(201);
      await meanwhile();
      const late = await fetch(String(publish.body.signedUrl), { method: 'PUT', headers: { 'Content-Type': 'application/zip' }, body: clean() });
      return { status: late.status, message: ((await late.json()) as { message: string }).message };
    }

    it('an upload URL of a node banned since it was issued is refused', async () => {
      const f = await createPublisherWithNode(t);
      const late = await uploadAfter(f, () => t.http.post(`/publishers/${f.publisherId}/nodes/${f.nodeId}/ban`).set(admin.auth).expect(204));
      expect(late).toEqual({ status: 403, message: 'node banned' });
    });

    it('an upload URL of a publisher banned since it was issued is refused, even with its node made active again', async () => {
      const f = await createPublisherWithNode(t);
      const late = await uploadAfter(f, async () => {
        await t.http.post(`/publishers/${f.publisherId}/ban`).set(admin.auth).expect(204);
        await t.http.put(`/publishers/${f.publisherId}/nodes/${f.nodeId}`).set(admin.auth).send({ status: 'NodeStatusActive' }).expect(200);
      });
      expect(late).toEqual({ status: 403, message: 'publisher banned' });
      const version = (await t.http.get(`/nodes/${f.nodeId}/versions/3.0.0`).set(admin.auth).expect(200)).body;
      expect(version).not.toHaveProperty('downloadUrl');
    });

    it('an admin deletes once: deleting again is 404, nothing changed', async () => {
      const f = await createPublisherWithNode(t);
      await addVersions(t, f, '1.0.0');
      const path = `/publishers/${f.publisherId}/nodes/${f.nodeId}/versions/1.0.0`;
      await t.http.delete(path).set(admin.auth).expect(204);
      await t.http.delete(path).set(admin.auth).expect(404);
      const history = (await reviewOf(f, '1.0.0', admin)).history;
      expect(history.filter((change) => change.status === 'NodeVersionStatusDeleted')).toEqual([expect.objectContaining({ reason: 'deleted by an admin', by: admin.id })]);
      await t.http.delete(`/publishers/${f.publisherId}/nodes/${f.nodeId}`).set(admin.auth).expect(204);
      await t.http.delete(`/publishers/${f.publisherId}/nodes/${f.nodeId}`).set(admin.auth).expect(404);
      await t.http.post(`/publishers/${f.publisherId}/nodes/${f.nodeId}/ban`).set(admin.auth).expect(404);
    });
  });

  describe('archive downloads (the downloadUrl)', () => {
    const archivePath = (version: Record<string, unknown>) => new URL(String(version.downloadUrl)).pathname;
    const PUBLIC = 'public, max-age=31536000, immutable';

    it('a flagged archive (a leaked key, say) is not served but to its members and admins, never cached', async () => {
      const zip = clean({ 'pack/config.py': `KEY = "${AWS_KEY}"\n` });
      const { f, version } = await reviewedUpload(zip);
      expect(version.status).toBe('NodeVersionStatusFlagged');
      const path = archivePath(version);
      const stranger = await t.createUser();
      expectErrorBody((await t.http.get(path).expect(404)).body, 404, 'Not Found');
      await t.http.head(path).expect(404);
      await t.http.get(path).set(stranger.auth).expect(404);
      for (const reviewer of [f.member, admin]) {
        const res = await t.http.get(path).set(reviewer.auth).buffer(true).parse(asBuffer).expect(200);
        expect(res.body).toEqual(zip);
        expect(res.headers['cache-control']).toBe('private, no-store');
      }
      // No cache keeps the refusal, nor gives one caller's reply to another.
      const refused = await t.http.get(path).expect(404);
      expect(refused.headers['cache-control']).toBe('no-store');
      expect(refused.headers.vary).toContain('Authorization');
      // Deleting it (what a publisher does about a leaked key) releases nothing: it never passed its checks.
      await t.http.delete(`/publishers/${f.publisherId}/nodes/${f.nodeId}/versions/1.0.0`).set(f.member.auth).expect(204);
      await t.http.get(path).expect(404);
      expect((await t.http.get(path).set(f.member.auth).expect(200)).headers['cache-control']).toBe('private, no-store');
    });

    it('a released archive stays public when its version gets a newer one, even one its checks block, until an admin bans the version', async () => {
      const first = clean({ 'pack/README.md': `${unique('first')}\n` });
      const { f, version } = await reviewedUpload(first);
      const firstPath = archivePath(version);
      await uploadArchive(t, f, '1.0.0', clean({ 'pack/README.md': `${unique('second')}\n` }));
      // Pending, then active: the first archive serves existing installs throughout.
      expect((await t.http.get(firstPath).expect(200)).headers['cache-control']).toBe(PUBLIC);
      const second = await reviewed(t, f, '1.0.0');
      expect(second.status).toBe('NodeVersionStatusActive');
      await t.http.get(firstPath).expect(200);
      await t.http.get(archivePath(second)).expect(200);
      // A third archive that its checks block flags the version: the archives it released still serve existing installs.
      await uploadArchive(t, f, '1.0.0', clean({ 'pack/config.py': `KEY = "${AWS_KEY}"\n`, 'pack/README.md': `${unique('third')}\n` }));
      const third = await reviewed(t, f, '1.0.0');
      expect(third.status).toBe('NodeVersionStatusFlagged');
      await t.http.get(archivePath(third)).expect(404);
      for (const path of [firstPath, archivePath(second)]) await t.http.get(path).expect(200);
      // An admin's ban of the version withdraws them.
      await t.http
        .put(`/admin/nodes/${f.nodeId}/versions/1.0.0`)
        .set(admin.auth)
        .send({ status: 'NodeVersionStatusBanned', status_reason: 'malware in an earlier archive' })
        .expect(200);
      for (const path of [firstPath, archivePath(second), archivePath(third)]) await t.http.get(path).expect(404);
    });

    it('a released archive is public, and stays so when its version is deleted; a ban withdraws it but for admins', async () => {
      // Bytes of its own: an archive other nodes hold too is theirs to release.
      const { f, version } = await reviewedUpload(clean({ 'pack/README.md': `${unique('readme')}\n` }));
      expect(version.status).toBe('NodeVersionStatusActive');
      const path = archivePath(version);
      expect((await t.http.get(path).expect(200)).headers['cache-control']).toBe(PUBLIC);
      await t.http.delete(`/publishers/${f.publisherId}/nodes/${f.nodeId}/versions/1.0.0`).set(f.member.auth).expect(204);
      expect((await t.http.get(path).expect(200)).headers['cache-control']).toBe(PUBLIC);
      await t.http.post(`/publishers/${f.publisherId}/nodes/${f.nodeId}/ban`).set(admin.auth).expect(204);
      await t.http.get(path).expect(404);
      await t.http.get(path).set(f.member.auth).expect(404);
      expect((await t.http.get(path).set(admin.auth).expect(200)).headers['cache-control']).toBe('private, no-store');
    });
  });

  describe('review records', () => {
    it('are for members and admins only', async () => {
      const f = await createPublisherWithNode(t);
      await addVersions(t, f, '1.0.0');
      const stranger = await t.createUser();
      await t.http.get(`/publishers/${f.publisherId}/nodes/${f.nodeId}/versions/1.0.0/review`).set(stranger.auth).expect(403);
      await t.http.get(`/publishers/${f.publisherId}/nodes/${f.nodeId}/versions/1.0.0/review`).expect(401);
      await t.http.get(`/publishers/${f.publisherId}/nodes/${f.nodeId}/versions/7.0.0/review`).set(f.owner.auth).expect(404);
      expect(await reviewOf(f, '1.0.0', admin)).toMatchObject({ status: 'NodeVersionStatusActive', findings: [], history: [{ status: 'NodeVersionStatusActive', by: f.owner.id }] });
    });
  });

  describe('self-service deletes', () => {
    it('a member deletes a version: gone from reads, installs and latest; a second delete is 404', async () => {
      const f = await createPublisherWithNode(t);
      await addVersions(t, f, '1.0.0', '1.1.0');
      const stranger = await t.createUser();
      const path = `/publishers/${f.publisherId}/nodes/${f.nodeId}/versions/1.1.0`;
      await t.http.delete(path).set(stranger.auth).expect(403);
      await t.http.delete(path).expect(401);
      await t.http.delete(path).set(f.member.auth).expect(204);
      await t.http.get(`/nodes/${f.nodeId}/versions/1.1.0`).expect(404);
      expect((await t.http.get(`/nodes/${f.nodeId}`).expect(200)).body.latest_version.version).toBe('1.0.0');
      expect((await t.http.get(`/nodes/${f.nodeId}/versions`).expect(200)).body.map((v: { version: string }) => v.version)).toEqual(['1.0.0']);
      const askedFor = await t.http.get(`/nodes/${f.nodeId}/versions?statuses=NodeVersionStatusDeleted`).set(f.member.auth).expect(200);
      expect(askedFor.body).toEqual([]);
      // The record says why, to its members; it takes no query.
      await t.http.get(`/publishers/${f.publisherId}/nodes/${f.nodeId}/versions/1.1.0/review?x=1`).set(f.member.auth).expect(400);
      expectErrorBody((await t.http.delete(path).set(f.member.auth).expect(404)).body, 404, 'Not Found');
      expect((await reviewOf(f, '1.1.0', admin)).history.at(-1)).toMatchObject({ status: 'NodeVersionStatusDeleted', by: f.member.id });
      // A member's delete gives no reason, and none is required of an admin's later edit.
      await t.http.put(path).set(admin.auth).send({ status_reason: null }).expect(200);
    });

    it('a member deletes a node: 404 everywhere, its id stays taken', async () => {
      const f = await createPublisherWithNode(t);
      await t.http.delete(`/publishers/${f.publisherId}/nodes/${f.nodeId}`).set(f.member.auth).expect(204);
      await t.http.get(`/nodes/${f.nodeId}`).expect(404);
      await t.http.delete(`/publishers/${f.publisherId}/nodes/${f.nodeId}`).set(f.member.auth).expect(404);
      await t.http.post(`/publishers/${f.publisherId}/nodes`).set(f.owner.auth).send({ id: f.nodeId, name: 'Again' }).expect(409);
    });
  });

  describe('bans', () => {
    it('a banned node is 403 "node banned" to everyone but admins, and unlisted', async () => {
      const f = await createPublisherWithNode(t);
      await t.http
        .post(`/publishers/${f.publisherId}/nodes/${f.nodeId}/versions`)
        .set(admin.auth)
        .send({ version: '1.0.0', downloadUrl: 'https://example.com/pack-1.0.0.zip' })
        .expect(201);
      await t.http.post(`/publishers/${f.publisherId}/nodes/${f.nodeId}/ban`).set(f.owner.auth).expect(403);
      await t.http.post(`/publishers/${f.publisherId}/nodes/${f.nodeId}/ban`).set(admin.auth).expect(204);
      for (const path of [
        `/nodes/${f.nodeId}`,
        `/nodes/${f.nodeId}/versions`,
        `/nodes/${f.nodeId}/versions/1.0.0`,
        `/nodes/${f.nodeId}/versions/1.0.0/comfy-nodes`,
        `/nodes/${f.nodeId}/install`,
      ]) {
        const refused = await t.http.get(path).expect(403);
        expect(refused.body.message).toBe('node banned');
        await t.http.get(path).set(f.owner.auth).expect(403);
        await t.http.get(path).set(admin.auth).expect(200);
      }
      expect((await t.http.get(`/nodes?node_id=${f.nodeId}`).expect(200)).body.nodes).toEqual([]);
      // Its members may still read why: the versions' review records (every decision is explained to the publisher).
      const reviewPath = `/publishers/${f.publisherId}/nodes/${f.nodeId}/versions/1.0.0/review`;
      expect((await t.http.get(reviewPath).set(f.member.auth).expect(200)).body.status).toBe('NodeVersionStatusActive');
      await t.http.get(reviewPath).set((await t.createUser()).auth).expect(403);
    });

    it('a ban lifted by an admin leaves no reason behind: a new status without a reason clears the old one', async () => {
      const f = await createPublisherWithNode(t);
      await addVersions(t, f, '1.0.0');
      const versionPath = `/publishers/${f.publisherId}/nodes/${f.nodeId}/versions/1.0.0`;
      await t.http.put(versionPath).set(admin.auth).send({ status: 'NodeVersionStatusBanned', status_reason: 'malware' }).expect(200);
      const lifted = await t.http.put(versionPath).set(admin.auth).send({ status: 'NodeVersionStatusActive' }).expect(200);
      expect(lifted.body).toMatchObject({ status: 'NodeVersionStatusActive' });
      expect(lifted.body).not.toHaveProperty('status_reason');
      expect((await reviewOf(f, '1.0.0', admin)).history.at(-1)).toEqual({ status: 'NodeVersionStatusActive', at: expect.any(String), by: admin.id });
      // A reason sent with the status is kept.
      const flagged = await t.http.put(versionPath).set(admin.auth).send({ status: 'NodeVersionStatusFlagged', status_reason: 'looking again' }).expect(200);
      expect(flagged.body.status_reason).toBe('looking again');
      // A decided status keeps a reason: changed alone, it may be reworded, not removed; an active version's may.
      for (const cleared of [null, '', '   ']) {
        const refused = await t.http.put(versionPath).set(admin.auth).send({ status_reason: cleared }).expect(400);
        expect(refused.body.message).toBe('status_reason is required with status NodeVersionStatusFlagged: it tells the publisher why');
      }
      expect((await t.http.get(versionPath.replace(`/publishers/${f.publisherId}`, '')).set(admin.auth).expect(200)).body.status_reason).toBe('looking again');
      expect((await t.http.put(versionPath).set(admin.auth).send({ status_reason: 'still looking' }).expect(200)).body.status_reason).toBe('still looking');

      await t.http.post(`/publishers/${f.publisherId}/nodes/${f.nodeId}/ban`).set(admin.auth).expect(204);
      const node = await t.http.put(`/publishers/${f.publisherId}/nodes/${f.nodeId}`).set(admin.auth).send({ status: 'NodeStatusActive' }).expect(200);
      expect(node.body.status).toBe('NodeStatusActive');
      expect(node.body).not.toHaveProperty('status_detail');
      expect((await t.http.get(`/nodes/${f.nodeId}`).expect(200)).body).not.toHaveProperty('status_detail');
    });

    it('a banned publisher: all its nodes banned, its members refused on its routes', async () => {
      const f = await createPublisherWithNode(t);
      await addVersions(t, f, '1.0.0');
      await t.http.post(`/publishers/${f.publisherId}/ban`).set(f.owner.auth).expect(403);
      await t.http.post(`/publishers/${f.publisherId}/ban`).set(admin.auth).expect(204);
      expect((await t.http.get(`/nodes/${f.nodeId}`).expect(403)).body.message).toBe('node banned');
      await t.http.put(`/publishers/${f.publisherId}/nodes/${f.nodeId}`).set(f.owner.auth).send({ description: 'x' }).expect(403);
      await t.http.post(`/publishers/${f.publisherId}/nodes`).set(f.owner.auth).send({ id: `${f.nodeId}-2`, name: 'More' }).expect(403);
      // Its own read too, for its members (it showed them their members' e-mails); anyone else reads it as before.
      expect((await t.http.get(`/publishers/${f.publisherId}`).set(f.owner.auth).expect(403)).body.message).toBe('publisher banned');
      // Its nodes' review records too (a banned node's alone stays readable to its members).
      const review = await t.http.get(`/publishers/${f.publisherId}/nodes/${f.nodeId}/versions/1.0.0/review`).set(f.member.auth).expect(403);
      expect(review.body.message).toBe('publisher banned');
      expect((await t.http.get(`/publishers/${f.publisherId}`).expect(200)).body.status).toBe('PublisherStatusBanned');
      await t.http.get(`/publishers/${f.publisherId}`).set(admin.auth).expect(200);
      // A node an admin adds to it later is banned as the others are, however it is added.
      const added = await t.http.post(`/publishers/${f.publisherId}/nodes`).set(admin.auth).send({ id: `${f.nodeId}-3`, name: 'Added' }).expect(201);
      expect(added.body.status).toBe('NodeStatusBanned');
      await t.http
        .post(`/publishers/${f.publisherId}/nodes/${f.nodeId}-4/versions`)
        .send({ personal_access_token: admin.token, node: { id: `${f.nodeId}-4` }, node_version: { version: '1.0.0' } })
        .expect(201);
      for (const id of [`${f.nodeId}-3`, `${f.nodeId}-4`]) {
        expect((await t.http.get(`/nodes/${id}`).expect(403)).body.message).toBe('node banned');
        expect((await t.http.get(`/nodes/${id}`).set(admin.auth).expect(200)).body.status).toBe('NodeStatusBanned');
      }
      await t.http.post('/publishers/no-such-publisher/ban').set(admin.auth).expect(404);
    });
  });
});
