import { OpenAPIObject } from '@nestjs/swagger';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { UserEntity } from '../src/users/entities/user.entity';
import { addVersions, createPublisherWithNode, PublisherFixture } from './support/registry-fixtures';
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

/** Every table: a rejected request must leave all of them exactly as they were. */
const TABLES = [
  'users', 'access_tokens', 'credit_ledger', 'publishers', 'publisher_members', 'nodes', 'node_versions',
  'reviews', 'video_tasks', 'idempotency_keys', 'callback_deliveries', 'upstream_callback_nonces',
];

/**
 * The rows a request of this suite could touch. On in-memory SQLite the
 * database is the suite's own, so that is every row of every table; on
 * PostgreSQL the suites share one database and write to it in parallel, so
 * only the rows of the suite's users, their publishers and nodes are compared.
 */
function rowsToCompare(userIds: string[]): string[] {
  if (!process.env.TEST_DATABASE_URL) {
    return TABLES.map((table) => `SELECT * FROM "${table}" ORDER BY 1`);
  }
  const users = `(${userIds.map((id) => `'${id}'`).join(', ')})`;
  const publishers = `(SELECT "publisher_id" FROM "publisher_members" WHERE "user_id" IN ${users})`;
  const nodes = `(SELECT "id" FROM "nodes" WHERE "publisher_id" IN ${publishers})`;
  return [
    `SELECT * FROM "users" WHERE "id" IN ${users} ORDER BY 1`,
    ...['access_tokens', 'credit_ledger', 'video_tasks', 'idempotency_keys', 'callback_deliveries'].map(
      (table) => `SELECT * FROM "${table}" WHERE "user_id" IN ${users} ORDER BY 1`,
    ),
    `SELECT * FROM "publisher_members" WHERE "publisher_id" IN ${publishers} ORDER BY 1`,
    `SELECT * FROM "publishers" WHERE "id" IN ${publishers} ORDER BY 1`,
    `SELECT * FROM "nodes" WHERE "id" IN ${nodes} ORDER BY 1`,
    `SELECT * FROM "node_versions" WHERE "node_id" IN ${nodes} ORDER BY 1`,
    `SELECT * FROM "reviews" WHERE "user_id" IN ${users} OR "node_id" IN ${nodes} ORDER BY 1`,
  ];
}

/** A digest of those rows: equal before and after means nothing changed. */
async function digestRows(t: TestApp, userIds: string[]): Promise<string> {
  const hash = createHash('sha256');
  for (const query of rowsToCompare(userIds)) {
    hash.update(JSON.stringify(await t.dataSource.query(query)));
  }
  return hash.digest('hex');
}

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

  const snapshot = () => digestRows(t, [f.owner.id, f.member.id, admin.id]);

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

/** Bytes that are not UTF-8 (a lone continuation byte, an overlong slash, a truncated sequence), inside JSON. */
const INVALID_UTF8_BODIES = [
  Buffer.concat([Buffer.from('{"name": "'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]),
  Buffer.concat([Buffer.from('{"description": "'), Buffer.from([0xc0, 0xaf, 0xff, 0xfe]), Buffer.from('"}')]),
  Buffer.concat([Buffer.from('{"prompt": "'), Buffer.from([0xe2, 0x82]), Buffer.from('"}')]),
];

interface Operation {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  bodyFields: string[];
  queryFields: string[];
}

describe('Every route of the OpenAPI document under hostile input (property-based)', () => {
  let t: TestApp;
  let f: PublisherFixture;
  let admin: TestUser;
  let operations: Operation[];
  let realIds: Record<string, string>;

  beforeAll(async () => {
    t = await TestApp.start();
    f = await createPublisherWithNode(t);
    admin = await t.createUser({ admin: true, credits: 1000 });
    const versions = await addVersions(t, f, '1.0.0');
    const token = await t.http.post('/users/me/tokens').set(admin.auth).send({ name: 'fuzz' }).expect(201);
    const task = await t.http.post('/proxy/video/reference2video').set(admin.auth).send({ duration: 2, prompt: 'fuzz' }).expect(200);
    realIds = {
      publisherId: f.publisherId,
      nodeId: f.nodeId,
      versionId: versions['1.0.0'],
      userId: f.member.id,
      tokenId: token.body.id as string,
      taskId: task.body.task_id as string,
    };
    const doc = (await t.http.get('/docs-json').expect(200)).body as OpenAPIObject;
    const schemaFields = (ref: string | undefined): string[] =>
      Object.keys((ref && (doc.components?.schemas?.[ref.split('/').pop() ?? ''] as { properties?: object } | undefined)?.properties) || {});
    operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      (['get', 'post', 'put', 'delete'] as const)
        .filter((method) => item[method])
        .map((method) => {
          const operation = item[method]!;
          const body = operation.requestBody as { content?: Record<string, { schema?: { $ref?: string } }> } | undefined;
          const parameters = (operation.parameters ?? []) as { in: string; name: string }[];
          return {
            method,
            path,
            bodyFields: schemaFields(body?.content?.['application/json']?.schema?.$ref),
            queryFields: parameters.filter((p) => p.in === 'query').map((p) => p.name),
          };
        }),
    );
  });
  afterAll(() => t.close());

  const digest = () => digestRows(t, [admin.id, f.owner.id, f.member.id]);

  const request = fc.record({
    operation: fc.nat(),
    pathIds: fc.array(fc.oneof(fc.constant(null), hostileId), { minLength: 3, maxLength: 3 }),
    query: fc.array(fc.tuple(fc.oneof(fc.constant(''), fc.constantFrom('__proto__', 'page', 'x')), fc.oneof(hostileId, fc.constant('%FF'))), { maxLength: 3 }),
    body: fc.oneof(
      { weight: 4, arbitrary: fc.record({ kind: fc.constant('json' as const), fields: fc.array(fc.tuple(fc.nat(), hostileValue), { maxLength: 4 }) }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('invalid-utf8' as const), which: fc.nat({ max: INVALID_UTF8_BODIES.length - 1 }) }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/xml'), text: fc.string({ maxLength: 50 }) }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('none' as const) }) },
    ),
    auth: fc.constantFrom('admin', 'owner', 'member', 'none', 'garbage'),
  });

  it('never answers 5xx, never hangs, always answers in the error shape, and a rejected request changes no row', async () => {
    await fc.assert(
      fc.asyncProperty(request, async (input) => {
        const operation = operations[input.operation % operations.length];
        let idIndex = 0;
        const path = operation.path.replace(/\{(\w+)\}/g, (_match, name: string) => {
          const hostile = input.pathIds[idIndex++];
          return hostile === null ? encodeURIComponent(realIds[name] ?? name) : encodeURIComponent(hostile);
        });
        const query = input.query
          .map(([key, value]) => `${encodeURIComponent(key || operation.queryFields[0] || 'q')}=${value === '%FF' ? value : encodeURIComponent(value)}`)
          .join('&');
        const before = await digest();

        let call = t.http[operation.method](query ? `${path}?${query}` : path).timeout({ response: 10_000, deadline: 15_000 });
        const token = { admin: admin.token, owner: f.owner.token, member: f.member.token, none: undefined, garbage: 'nrt_garbage' }[input.auth];
        if (token) call = call.set('Authorization', `Bearer ${token}`);
        const body = input.body;
        let res;
        if (body.kind === 'json') {
          const keys = [...operation.bodyFields, '__proto__', 'constructor', 'unknown_field'];
          res = await call.set('Content-Type', 'application/json').send(JSON.stringify(Object.fromEntries(body.fields.map(([k, v]) => [keys[k % keys.length], v]))));
        } else if (body.kind === 'invalid-utf8') {
          res = await call.set('Content-Type', 'application/json').send(INVALID_UTF8_BODIES[body.which]);
        } else if (body.kind === 'none') {
          res = await call;
        } else {
          res = await call.set('Content-Type', body.kind).send(body.text);
        }

        expect(res.status).toBeLessThan(500);
        if (res.status >= 400) {
          expect(res.body).toEqual(expect.objectContaining({ statusCode: res.status, message: expect.any(String), requestId: expect.any(String) }));
          expect(await digest()).toBe(before);
        }
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 400) },
    );
  }, 180_000);
});
