import { NodeEntity } from '../src/nodes/entities/node.entity';
import { addVersions, createPublisherWithNode, PublisherFixture } from './support/registry-fixtures';
import { TestApp } from './support/test-app';

/**
 * Anonymous public reads are served from the read cache (PublicReadCache):
 * proven by a change made behind the service's back, which a cached reply
 * does not show. Every write through the API shows at once in every read
 * that shows what it wrote, cached before or not.
 */
describe('The read cache of public replies', () => {
  let t: TestApp;
  let f: PublisherFixture;

  beforeAll(async () => {
    t = await TestApp.start();
    f = await createPublisherWithNode(t, { description: 'first' });
    await addVersions(t, f, '1.0.0');
  });
  afterAll(() => t.close());

  const page = () => t.http.get(`/nodes?search=${f.nodeId}`).expect(200);
  const node = () => t.http.get(`/nodes/${f.nodeId}`).expect(200);
  const versions = () => t.http.get(`/nodes/${f.nodeId}/versions`).expect(200);
  const behindTheServicesBack = (description: string) =>
    t.dataSource.createQueryBuilder().update(NodeEntity).set({ description }).where('id = :id', { id: f.nodeId }).execute();

  it('serves anonymous reads from the cache, and a token holder from the database', async () => {
    expect((await page()).body.nodes[0].description).toBe('first');
    expect((await node()).body.description).toBe('first');
    await behindTheServicesBack('behind');
    expect((await page()).body.nodes[0].description).toBe('first');
    expect((await node()).body.description).toBe('first');
    const withToken = await t.http.get(`/nodes/${f.nodeId}`).set(f.owner.auth).expect(200);
    expect(withToken.body.description).toBe('behind');
    expect(withToken.headers['cache-control']).toMatch(/^private/);
  });

  it('shows every kind of write at once, in the page, the node and its versions', async () => {
    const nodeUrl = `/publishers/${f.publisherId}/nodes/${f.nodeId}`;
    const primed = async () => Promise.all([page(), node(), versions()]);
    await primed();

    await t.http.put(nodeUrl).set(f.owner.auth).send({ description: 'edited', homepage: 'https://example.com/docs' }).expect(200);
    let [list, one] = await primed();
    expect([list.body.nodes[0].description, one.body.description]).toEqual(['edited', 'edited']);
    expect([list.body.nodes[0].homepage, one.body.homepage]).toEqual(['https://example.com/docs', 'https://example.com/docs']);
    // Merge-patch: null clears it, and a cleared field is left out of every reply.
    await t.http.put(nodeUrl).set(f.owner.auth).send({ homepage: null }).expect(200);
    [list, one] = await primed();
    expect(['homepage' in list.body.nodes[0], 'homepage' in one.body]).toEqual([false, false]);

    await t.http.post(`${nodeUrl}/versions`).set(f.owner.auth).send({ version: '1.1.0' }).expect(201);
    let all;
    [list, one, all] = await primed();
    expect([list.body.nodes[0].latest_version.version, one.body.latest_version.version]).toEqual(['1.1.0', '1.1.0']);
    expect(all.body.map((v: { version: string }) => v.version)).toEqual(['1.1.0', '1.0.0']);

    await t.http.put(`${nodeUrl}/versions/1.1.0`).set(f.owner.auth).send({ deprecated: true }).expect(200);
    [list, one, all] = await primed();
    expect([list.body.nodes[0].latest_version.version, one.body.latest_version.version]).toEqual(['1.0.0', '1.0.0']);
    expect(all.body[0]).toMatchObject({ version: '1.1.0', deprecated: true });

    await t.http.post(`/nodes/${f.nodeId}/reviews?star=4`).set(f.member.auth).expect(200);
    [list, one] = await primed();
    expect([list.body.nodes[0].rating, one.body.rating]).toEqual([4, 4]);
  });

  it('does not keep a failed read or a failed write’s effect', async () => {
    const missing = `${f.nodeId}-later`;
    await t.http.get(`/nodes/${missing}`).expect(404);
    await t.http.post(`/publishers/${f.publisherId}/nodes`).set(f.owner.auth).send({ id: missing, name: 'Later' }).expect(201);
    expect((await t.http.get(`/nodes/${missing}`).expect(200)).body.name).toBe('Later');
    // A refused write (403) changes nothing, and what was cached stays right.
    await t.http.put(`/publishers/${f.publisherId}/nodes/${f.nodeId}`).set((await t.createUser()).auth).send({ description: 'intruder' }).expect(403);
    expect((await node()).body.description).toBe('edited');
  });
});
