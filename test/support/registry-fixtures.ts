import { TestApp, TestUser, unique } from './test-app';

/** A publisher with an owner, a plain member and one node, created over HTTP. */
export interface PublisherFixture {
  publisherId: string;
  nodeId: string;
  owner: TestUser;
  member: TestUser;
}

export async function createPublisherWithNode(t: TestApp, nodeFields: object = {}): Promise<PublisherFixture> {
  const owner = await t.createUser();
  const member = await t.createUser();
  const publisherId = unique('pub');
  const nodeId = unique('Node');
  await t.http.post('/publishers').set(owner.auth).send({ id: publisherId, name: 'Publisher' }).expect(201);
  await t.http
    .post(`/publishers/${publisherId}/members`)
    .set(owner.auth)
    .send({ user_id: member.id, role: 'member' })
    .expect(201);
  await t.http
    .post(`/publishers/${publisherId}/nodes`)
    .set(owner.auth)
    .send({ id: nodeId, name: 'A node', ...nodeFields })
    .expect(201);
  return { publisherId, nodeId, owner, member };
}

export async function addVersions(t: TestApp, f: PublisherFixture, ...versions: string[]): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  for (const version of versions) {
    const res = await t.http
      .post(`/publishers/${f.publisherId}/nodes/${f.nodeId}/versions`)
      .set(f.owner.auth)
      .send({ version, changelog: `release ${version}` })
      .expect(201);
    ids[version] = res.body.id as string;
  }
  return ids;
}
