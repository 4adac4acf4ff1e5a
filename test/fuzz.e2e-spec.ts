import fc from 'fast-check';
import { NodeEntity } from '../src/nodes/entities/node.entity';
import { UserEntity } from '../src/users/entities/user.entity';
import { createPublisherWithNode, PublisherFixture } from './support/registry-fixtures';
import { TestApp, TestUser } from './support/test-app';

/** Hostile JSON values: wrong types, huge strings, deep nesting, prototype keys, SQL-looking text, lone surrogates. */
const hostileValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.constantFrom(true, false, 0, -1, 1e308, 2 ** 53, '', "' OR 1=1 --", '\u0000', '\ud800', '../../etc/passwd', '<script>'),
    fc.string({ maxLength: 40 }),
    fc.integer(),
    fc.double(),
    fc.constant('x'.repeat(10_000)),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom('__proto__', 'constructor', 'name', 'tags', 'star', 'id', 'x'), tie('value'), { maxKeys: 4 }),
  ),
})).value;

const nodeFields = fc.constantFrom('name', 'description', 'tags', 'icon', 'status', 'translations', 'id', 'downloads', 'search_ranking', 'latest_version');
const hostileNodeBody = fc.dictionary(nodeFields, hostileValue, { maxKeys: 4 });
const hostileId = fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom("x' OR '1'='1", '%00', '..%2F..', 'a'.repeat(300), '%F0%9F%98%80', '%ZZ'));

describe('Hostile input (property-based)', () => {
  let t: TestApp;
  let f: PublisherFixture;
  let admin: TestUser;

  beforeAll(async () => {
    t = await TestApp.start();
    f = await createPublisherWithNode(t, { description: 'stable' });
    admin = await t.createUser({ admin: true });
  });
  afterAll(() => t.close());

  const snapshot = async () => ({
    node: await t.dataSource.getRepository(NodeEntity).findOneByOrFail({ id: f.nodeId }),
    users: await t.dataSource.getRepository(UserEntity).count(),
  });

  it('PUT node: any body is answered without a 5xx, and a rejected one changes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(hostileNodeBody, async (body) => {
        const before = await snapshot();
        const res = await t.http.put(`/publishers/${f.publisherId}/nodes/${f.nodeId}`).set(f.owner.auth).send(body);
        expect(res.status).toBeLessThan(500);
        expect(res.body).toHaveProperty(res.status >= 400 ? 'requestId' : 'id');
        if (res.status >= 400) {
          expect(await snapshot()).toEqual(before);
        } else {
          // an accepted body is restored, so every run starts from the same node
          await t.http.put(`/publishers/${f.publisherId}/nodes/${f.nodeId}`).set(admin.auth).send({ name: 'A node', description: 'stable', status: 'NodeStatusActive' });
        }
      }),
      { numRuns: 300 },
    );
  });

  it('odd ids, queries and non-JSON bodies never produce a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(hostileId, fc.string({ maxLength: 20 }), fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/json'), async (id, star, type) => {
        const path = `/nodes/${encodeURIComponent(id)}`;
        for (const res of [
          await t.http.get(path),
          await t.http.get(`/nodes?search=${encodeURIComponent(id)}&limit=${encodeURIComponent(star)}`),
          await t.http.post(`${path}/reviews?star=${encodeURIComponent(star)}`).set(f.member.auth),
          await t.http.put(`/publishers/${encodeURIComponent(id)}/nodes/${encodeURIComponent(id)}`).set(f.owner.auth).set('Content-Type', type).send(`{"name": ${JSON.stringify(id)}`),
        ]) {
          expect(res.status).toBeLessThan(500);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('the video route rejects hostile bodies without charging', async () => {
    const user = await t.createUser({ credits: 50 });
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.constantFrom('prompt', 'duration', 'images', 'model', 'meta_data', 'payload', 'seed', '__proto__'), hostileValue, { maxKeys: 4 }), async (body) => {
        const balance = async () => (await t.dataSource.getRepository(UserEntity).findOneByOrFail({ id: user.id })).credits;
        const before = await balance();
        const res = await t.http.post('/proxy/video/reference2video').set(user.auth).send(body);
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400) {
          expect(await balance()).toBe(before);
        }
      }),
      { numRuns: 80 },
    );
  });
});
