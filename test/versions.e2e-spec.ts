import { NodeVersionEntity } from '../src/nodes/entities/node-version.entity';
import { expectNoNulls } from './support/no-nulls';
import { addVersions, createPublisherWithNode, PublisherFixture } from './support/registry-fixtures';
import { TestApp, TestUser } from './support/test-app';

describe('Node versions', () => {
  let t: TestApp;
  let admin: TestUser;
  let f: PublisherFixture;
  let ids: Record<string, string>;

  beforeAll(async () => {
    t = await TestApp.start();
    admin = await t.createUser({ admin: true });
  });
  beforeEach(async () => {
    f = await createPublisherWithNode(t);
    ids = await addVersions(t, f, '1.9.0', '1.10.0', '1.2.0');
  });
  afterAll(() => t.close());

  const versionUrl = (versionId: string, fixture = f) =>
    `/publishers/${fixture.publisherId}/nodes/${fixture.nodeId}/versions/${versionId}`;
  const latest = async () => (await t.http.get(`/nodes/${f.nodeId}`).expect(200)).body.latest_version?.version;

  it('creates active versions and picks the highest semantic version as latest (1.10.0 > 1.9.0)', async () => {
    expect(await latest()).toBe('1.10.0');
    const list = await t.http.get(`/nodes/${f.nodeId}/versions`).expect(200);
    expect(list.body.map((v: { version: string }) => v.version)).toEqual(['1.10.0', '1.9.0', '1.2.0']);
    expect(list.body[0]).toMatchObject({
      id: ids['1.10.0'],
      node_id: f.nodeId,
      status: 'NodeVersionStatusActive',
      deprecated: false,
      changelog: 'release 1.10.0',
      dependencies: [],
    });
    expectNoNulls(list.body);
  });

  it('rejects invalid semantic versions with 400 and duplicates with 409', async () => {
    for (const version of ['1.0', 'v1.0.0', '01.0.0', ' 1.0.0', 'latest']) {
      const res = await t.http.post(`/publishers/${f.publisherId}/nodes/${f.nodeId}/versions`).set(f.owner.auth).send({ version }).expect(400);
      expect(res.body.message).toContain('semantic version');
    }
    await t.http.post(`/publishers/${f.publisherId}/nodes/${f.nodeId}/versions`).set(f.owner.auth).send({ version: '1.9.0' }).expect(409);
    const build = await t.http.post(`/publishers/${f.publisherId}/nodes/${f.nodeId}/versions`).set(f.owner.auth).send({ version: '1.0.0+build.1' }).expect(400);
    expect(build.body.message).toContain('build metadata');
  });

  it('lets plain members publish versions; a download URL elsewhere only admins may give (it would install unchecked)', async () => {
    const url = `/publishers/${f.publisherId}/nodes/${f.nodeId}/versions`;
    const refused = await t.http.post(url).set(f.member.auth).send({ version: '2.0.0', downloadUrl: 'https://cdn.example.com/node-2.0.0.zip' }).expect(403);
    expect(refused.body.message).toContain("only admins may set 'downloadUrl'");
    await t.http.get(`/nodes/${f.nodeId}/versions/2.0.0`).expect(404);
    const created = await t.http
      .post(url)
      .set(admin.auth)
      .send({ version: '2.0.0', downloadUrl: 'https://cdn.example.com/node-2.0.0.zip', dependencies: ['numpy>=1.26'] })
      .expect(201);
    expect(created.body).toMatchObject({ version: '2.0.0', downloadUrl: 'https://cdn.example.com/node-2.0.0.zip', dependencies: ['numpy>=1.26'] });
    expect(ids['1.9.0']).toBeDefined();
    const bad = await t.http.post(url).set(admin.auth).send({ version: '2.0.1', downloadUrl: 'file:///etc/passwd' }).expect(400);
    expect(bad.body.message).toContain('downloadUrl must be an absolute http(s) URL');
  });

  it('prefers releases over newer pre-releases', async () => {
    await addVersions(t, f, '2.0.0-beta.1');
    expect(await latest()).toBe('1.10.0');
  });

  it('updates by semantic version string or by id, partially', async () => {
    const bySemver = await t.http.put(versionUrl('1.9.0')).set(f.member.auth).send({ changelog: 'Fixed things' }).expect(200);
    expect(bySemver.body).toMatchObject({ id: ids['1.9.0'], changelog: 'Fixed things', deprecated: false });
    expectNoNulls(bySemver.body);
    const byId = await t.http.put(versionUrl(ids['1.9.0'])).set(f.member.auth).send({ deprecated: true }).expect(200);
    expect(byId.body).toMatchObject({ changelog: 'Fixed things', deprecated: true });
    const cleared = await t.http.put(versionUrl('1.9.0')).set(f.member.auth).send({ changelog: null }).expect(200);
    expect(cleared.body).not.toHaveProperty('changelog');
    expectNoNulls(cleared.body);
  });

  it('a PUT that sets nothing answers the version as it is and changes nothing (admin or member, no body or {})', async () => {
    const changeTimes = () =>
      t.dataSource.query(`SELECT n.updated_at AS node, v.updated_at AS version FROM nodes n JOIN node_versions v ON v.node_id = n.id WHERE n.id = '${f.nodeId}' ORDER BY v.id`);
    const before = await changeTimes();
    const empty = await t.http.put(versionUrl('1.9.0')).set(admin.auth).expect(200);
    expect(empty.body).toMatchObject({ id: ids['1.9.0'], version: '1.9.0', changelog: 'release 1.9.0', status: 'NodeVersionStatusActive' });
    await t.http.put(versionUrl('1.9.0')).set(f.member.auth).send({}).expect(200);
    expect(await changeTimes()).toEqual(before);
  });

  it('deprecating the latest version moves latest_version at once', async () => {
    await t.http.put(versionUrl('1.10.0')).set(f.owner.auth).send({ deprecated: true }).expect(200);
    expect(await latest()).toBe('1.9.0');
    await t.http.put(versionUrl('1.9.0')).set(f.owner.auth).send({ deprecated: true }).expect(200);
    await t.http.put(versionUrl('1.2.0')).set(f.owner.auth).send({ deprecated: true }).expect(200);
    expect(await latest()).toBe('1.10.0'); // all deprecated: the highest active one
    await t.http.put(versionUrl('1.9.0')).set(f.owner.auth).send({ deprecated: false }).expect(200);
    expect(await latest()).toBe('1.9.0');
  });

  it('checks that the version belongs to the node and the node to the publisher', async () => {
    const other = await createPublisherWithNode(t);
    const otherIds = await addVersions(t, other, '3.0.0');
    // another node's version id under this node: 404, and nothing changes
    await t.http.put(versionUrl(otherIds['3.0.0'])).set(f.owner.auth).send({ deprecated: true }).expect(404);
    expect((await t.dataSource.getRepository(NodeVersionEntity).findOneByOrFail({ id: otherIds['3.0.0'] })).deprecated).toBe(false);
    // this node under another publisher (whose owner calls): 404
    await t.http
      .put(`/publishers/${other.publisherId}/nodes/${f.nodeId}/versions/1.9.0`)
      .set(other.owner.auth)
      .send({ deprecated: true })
      .expect(404);
    await t.http.put(versionUrl('9.9.9')).set(f.owner.auth).send({ deprecated: true }).expect(404);
    await t.http.put(versionUrl('1.9.0', other)).set(f.owner.auth).send({ deprecated: true }).expect(403);
  });

  it('checks the publisher and node before the admin-only fields', async () => {
    await t.http.put(`/publishers/no-such-publisher/nodes/${f.nodeId}/versions/1.9.0`).set(f.owner.auth).send({ status_reason: 'x' }).expect(404);
  });

  it('status and status_reason are admin-only moderation', async () => {
    const denied = await t.http.put(versionUrl('1.10.0')).set(f.owner.auth).send({ status: 'NodeVersionStatusActive' }).expect(403);
    expect(denied.body.message).toContain('status');
    await t.http.put(versionUrl('1.10.0')).set(f.owner.auth).send({ status_reason: 'x' }).expect(403);
    const both = await t.http.put(versionUrl('1.10.0')).set(f.owner.auth).send({ status: 'NodeVersionStatusBanned', status_reason: 'x' }).expect(403);
    expect(both.body.message).toBe("only admins may set 'status'; only admins may set 'status_reason'");

    const banned = await t.http
      .put(versionUrl('1.10.0'))
      .set(admin.auth)
      .send({ status: 'NodeVersionStatusBanned', status_reason: 'malware' })
      .expect(200);
    expect(banned.body).toMatchObject({ status: 'NodeVersionStatusBanned', status_reason: 'malware' });
    expect(await latest()).toBe('1.9.0');
    await t.http.put(versionUrl('1.10.0')).set(f.owner.auth).send({ changelog: 'x' }).expect(403);

    await t.http.put(versionUrl('1.9.0')).set(admin.auth).send({ status: 'NodeVersionStatusDeleted', status_reason: 'withdrawn' }).expect(200);
    await t.http.put(versionUrl('1.9.0')).set(f.owner.auth).send({ changelog: 'x' }).expect(404);
    const listed = await t.http.get(`/nodes/${f.nodeId}/versions`).expect(200);
    expect(listed.body.map((v: { version: string }) => v.version)).toEqual(['1.10.0', '1.2.0']);
    expect(await latest()).toBe('1.2.0');
  });

  it('rejects bad bodies with 400 and changes nothing', async () => {
    for (const body of [{ deprecated: 'yes' }, { deprecated: null }, { changelog: 5 }, { version: '2.0.0' }, { status: 'Gone' }]) {
      await t.http.put(versionUrl('1.9.0')).set(admin.auth).send(body).expect(400);
    }
    const row = await t.dataSource.getRepository(NodeVersionEntity).findOneByOrFail({ id: ids['1.9.0'] });
    expect(row).toMatchObject({ deprecated: false, changelog: 'release 1.9.0', status: 'NodeVersionStatusActive' });
  });

  it('requires a token and membership', async () => {
    const outsider = await t.createUser();
    await t.http.put(versionUrl('1.9.0')).send({ deprecated: true }).expect(401);
    await t.http.put(versionUrl('1.9.0')).set(outsider.auth).send({ deprecated: true }).expect(403);
  });
});
