import { OpenAPIObject } from '@nestjs/swagger';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Server } from 'node:http';
import { AddressInfo, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectErrorBody } from './support/error-body';
import { expectNoNulls } from './support/no-nulls';
import { createPublisherWithNode } from './support/registry-fixtures';
import { TestDatabase, waitFor } from './support/server-process';
import { TcpRelay } from './support/tcp-relay';
import { TestApp, TestUser } from './support/test-app';

describe('HTTP pipeline (errors, request ids, health, OpenAPI)', () => {
  let t: TestApp;
  let user: TestUser;

  beforeAll(async () => {
    // As `npm run openapi` builds the document: with GET /metrics, which exists only with a token.
    t = await TestApp.start({ METRICS_TOKEN: 'http-pipeline-metrics-token' });
    user = await t.createUser();
  });
  afterAll(() => t.close());

  it('unknown routes get the error body and the X-Request-Id header', async () => {
    const res = await t.http.get('/no/such/route').expect(404);
    expectErrorBody(res.body, 404, 'Not Found', res.headers['x-request-id']);
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a known path with another method is 405, naming in Allow the methods it has; a handler\'s own 404 stays', async () => {
    const deleted = await t.http.delete('/nodes/anything').expect(405);
    expectErrorBody(deleted.body, 405, 'Method Not Allowed', deleted.headers['x-request-id']);
    expect(deleted.body.message).toBe('DELETE is not allowed on /nodes/anything (allowed: GET, HEAD)');
    expect(deleted.headers.allow).toBe('GET, HEAD');
    // Matched as routes are: ignoring case and a trailing slash; the methods of every route on the path.
    expect((await t.http.patch('/Publishers/anyone/').expect(405)).headers.allow).toBe('GET, HEAD, PUT');
    expect((await t.http.post('/nodes/anything/versions/1.0.0').expect(405)).headers.allow).toBe('GET, HEAD');
    // HEAD, which Express tries on a GET route, on a path without one.
    expect((await t.http.head('/users/me/tokens').expect(405)).headers.allow).toBe('POST');
    // An unknown path, and a known route that finds nothing, stay 404.
    await t.http.delete('/no/such/route').expect(404);
    expect((await t.http.get('/nodes/no-such-node').expect(404)).body.message).toBe("node 'no-such-node' not found");
    await t.http.head('/nodes').expect(200);
  });

  it('runs on Express, the platform the design names', () => {
    expect(t.app.getHttpAdapter().getType()).toBe('express');
  });

  it('a path with invalid percent-encoding is a 400 in the error shape, with its request id', async () => {
    const res = await t.http.get('/nodes/%E0%A4%A?x=1').set('X-Request-Id', 'bad-url-1').expect(400);
    expectErrorBody(res.body, 400, 'Bad Request', 'bad-url-1');
    expect(res.body.message).toBe("Failed to decode param '%E0%A4%A'");
    expect(res.headers['x-request-id']).toBe('bad-url-1');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    // A literal %25 is fine: it decodes.
    await t.http.get('/nodes/a%25b').expect(404);
  });

  it('requests Node refuses (oversized headers, malformed HTTP or chunked body) get the error shape and a request id', async () => {
    const server = t.app.getHttpServer() as Server;
    try {
      const { port } = server.address() as AddressInfo;
      const exchange = (raw: string) =>
        new Promise<string>((resolve) => {
          let reply = '';
          const socket = connect(port, '127.0.0.1', () => socket.write(raw));
          socket.on('data', (chunk) => (reply += chunk.toString()));
          // Whatever arrived before the server closed the connection (or reset it).
          socket.on('close', () => resolve(reply));
          socket.on('error', () => undefined);
        });
      const parse = (reply: string) => {
        const [head, body] = reply.split('\r\n\r\n');
        return { statusLine: head.split('\r\n')[0], requestId: /x-request-id: (\S+)/i.exec(head)?.[1], body: JSON.parse(body) as Record<string, unknown> };
      };
      const tooLarge = parse(await exchange(`GET /nodes?q=${'a'.repeat(17 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`));
      expect(tooLarge.statusLine).toBe('HTTP/1.1 431 Request Header Fields Too Large');
      expectErrorBody(tooLarge.body, 431, 'Request Header Fields Too Large', tooLarge.requestId);
      expect(tooLarge.body.message).toBe('the request line and headers are larger than 16384 bytes');
      const malformed = parse(await exchange('GET /nodes HTTP/1.1\r\nHost x\r\n\r\n'));
      expect(malformed.statusLine).toBe('HTTP/1.1 400 Bad Request');
      expectErrorBody(malformed.body, 400, 'Bad Request', malformed.requestId);
      // A body that breaks chunked encoding: the request already had an id, and the refusal keeps it.
      const badChunk = parse(
        await exchange(
          'POST /publishers HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nX-Request-Id: bad-chunk-1\r\n\r\nzz\r\n',
        ),
      );
      expect(badChunk.statusLine).toBe('HTTP/1.1 400 Bad Request');
      expectErrorBody(badChunk.body, 400, 'Bad Request', 'bad-chunk-1');
      expect(badChunk.requestId).toBe('bad-chunk-1');
      // Behind a complete request whose reply is pending, a 400 would read as that request's answer: the connection closes instead.
      expect(await exchange('GET /health HTTP/1.1\r\nHost: x\r\n\r\nNOT HTTP\r\n\r\n')).not.toContain('400 Bad Request');
    } finally {
      server.closeAllConnections();
    }
  });

  it('matches routes ignoring case and a trailing slash, on either adapter', async () => {
    await t.http.get('/HEALTH/').expect(200);
  });

  it('echoes a valid incoming X-Request-Id and replaces an invalid one', async () => {
    const echoed = await t.http.get('/health').set('X-Request-Id', 'abc-123.trace').expect(200);
    expect(echoed.headers['x-request-id']).toBe('abc-123.trace');
    const replaced = await t.http.get('/health').set('X-Request-Id', 'bad id with spaces').expect(200);
    expect(replaced.headers['x-request-id']).not.toBe('bad id with spaces');
  });

  it('JSON nested thousands of levels deep is a 413 as soon as it crosses the depth limit, not a crash', async () => {
    const deep = `${'['.repeat(5000)}1${']'.repeat(5000)}`;
    const res = await t.http
      .put('/publishers/p/nodes/n')
      .set(user.auth)
      .set('Content-Type', 'application/json')
      .send(`{"tags": ${deep}}`)
      .expect(413);
    expectErrorBody(res.body, 413, 'Payload Too Large');
    expect(res.body.message).toBe('request body is nested more than 32 levels deep');
  });

  it('malformed JSON is a 400 in the error shape', async () => {
    const res = await t.http
      .put('/publishers/p/nodes/n')
      .set(user.auth)
      .set('Content-Type', 'application/json')
      .send('{"name": ')
      .expect(400);
    expectErrorBody(res.body, 400, 'Bad Request');
    expect(res.body.message).toBe('request body is not valid JSON');
  });

  it('a non-JSON body is 415 and an oversized body is 413', async () => {
    const text = await t.http.post('/publishers').set(user.auth).set('Content-Type', 'text/plain').send('id=x').expect(415);
    expectErrorBody(text.body, 415, 'Unsupported Media Type');
    const huge = await t.http
      .post('/publishers')
      .set(user.auth)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ id: 'huge', name: 'x'.repeat(1_100_000) }))
      .expect(413);
    expectErrorBody(huge.body, 413, 'Payload Too Large');
  });

  it('a body that is not a JSON object is 400, `null` and other bare values included (they are JSON)', async () => {
    const res = await t.http.post('/publishers').set(user.auth).send([{ id: 'x', name: 'y' }]).expect(400);
    expect(res.body.message).toBe('request body must be a JSON object');
    for (const text of ['null', '42', '"publisher"']) {
      const scalar = await t.http.post('/publishers').set(user.auth).set('Content-Type', 'application/json').send(text).expect(400);
      expectErrorBody(scalar.body, 400, 'Bad Request');
      expect(scalar.body.message).toBe('request body must be a JSON object');
    }
  });

  it('validation problems are joined into one message naming every field', async () => {
    const res = await t.http.post('/publishers').set(user.auth).send({ id: 'Bad Id', name: 7, colour: 'red' }).expect(400);
    expectErrorBody(res.body, 400, 'Bad Request');
    expect(res.body.message).toContain('property colour should not exist');
    expect(res.body.message).toContain('id must be 1-64 lower-case letters');
    expect(res.body.message).toContain('name must be a string');
  });

  it('a required field left out is named as required, not told every rule its value would break', async () => {
    const missing = await t.http.post('/publishers').set(user.auth).send({}).expect(400);
    expect(missing.body.message).toBe('id is required; name is required');
    const nested = await t.http.post('/bulk/nodes/versions').send({ node_versions: [{ node_id: 'a' }] }).expect(400);
    expect(nested.body.message).toBe('node_versions.0.version is required');
    // A rule that needs the service's state still says its own (BodyRules): a private callback address.
    const rules = await t.http.post('/proxy/video/reference2video').set(user.auth).send({ callback_url: 'http://127.0.0.1/hook' }).expect(400);
    expect(rules.body.message).toContain('callback_url');
    expect(rules.body.message).not.toContain('is required');
  });

  it('an unknown query parameter is 400 naming it, on reads that take none too', async () => {
    await t.http.post('/publishers').set(user.auth).send({ id: 'query-check', name: 'Q' }).expect(201);
    await t.http.post('/publishers/query-check/nodes').set(user.auth).send({ id: 'query-node', name: 'N' }).expect(201);
    await t.http.post('/publishers/query-check/nodes/query-node/versions').set(user.auth).send({ version: '1.0.0' }).expect(201);
    for (const path of ['/nodes/query-node', '/nodes/query-node/versions/1.0.0', '/publishers/query-check', '/comfy-nodes/SomeClass/node', '/nodes']) {
      const res = await t.http.get(path).query({ colour: 'red' }).expect(400);
      expectErrorBody(res.body, 400, 'Bad Request');
      expect(res.body.message).toContain('property colour should not exist');
    }
    // The public registry's node read takes include_translations; translations are always shown.
    await t.http.get('/nodes/query-node').query({ include_translations: 'false' }).expect(200);
    // Only the catalog takes `latest`: elsewhere it is refused, whatever the read cache holds for the bare path.
    await t.http.get('/nodes/query-node').expect(200);
    await t.http.get('/nodes/query-node').query({ latest: 'false' }).expect(400);
    // The catalog takes `latest` as true or false only, whatever the read cache holds for the bare path.
    await t.http.get('/nodes').expect(200);
    for (const latest of ['yes', '', '1']) await t.http.get('/nodes').query({ latest }).expect(400);
    await t.http.get('/nodes?latest=false&latest=x').expect(400);
    await t.http.get('/nodes').query({ latest: 'false' }).expect(200);
  });

  it('a write that declares no query parameter refuses any, naming each, and changes nothing; other reads ignore one', async () => {
    await t.http.post('/publishers').set(user.auth).send({ id: 'write-query', name: 'W' }).expect(201);
    await t.http.post('/publishers/write-query/nodes').set(user.auth).send({ id: 'write-query-node', name: 'N' }).expect(201);
    await t.http.post('/publishers/write-query/nodes/write-query-node/versions').set(user.auth).send({ version: '1.0.0' }).expect(201);
    const version = '/publishers/write-query/nodes/write-query-node/versions/1.0.0';
    const refused = await t.http.delete(`${version}?dry_run=true&force=1`).set(user.auth).expect(400);
    expectErrorBody(refused.body, 400, 'Bad Request');
    expect(refused.body.message).toBe('property dry_run should not exist; property force should not exist');
    await t.http.get('/nodes/write-query-node/versions/1.0.0').expect(200);
    const put = await t.http.put('/publishers/write-query?notify=1').set(user.auth).send({ description: 'changed' }).expect(400);
    expect(put.body.message).toBe('property notify should not exist');
    expect((await t.http.get('/publishers/write-query').expect(200)).body).not.toHaveProperty('description');
    // With the body's own problems, in one message (CONTRACT §1: all problems joined), and nothing changed.
    const both = await t.http.put('/publishers/write-query/nodes/write-query-node?x=1').set(user.auth).send({ zz: 1, name: 5 }).expect(400);
    expect(both.body.message).toBe('property x should not exist; property zz should not exist; name must be a string');
    expect((await t.http.get('/nodes/write-query-node').expect(200)).body.name).toBe('N');
    // A body on a route that takes none, with the problems of the query it does take.
    const review = await t.http.post('/nodes/write-query-node/reviews?star=9').set(user.auth).send({ q: 1 }).expect(400);
    expect(review.body.message).toBe('star must be an integer from 1 to 5; property q should not exist');
    expect((await t.http.get('/nodes/write-query-node').expect(200)).body.rating).toBe(0);
    await t.http.delete(version).set(user.auth).expect(204);
    // A read that takes no query ignores one (docs/api-rules.md §1).
    await t.http.get('/users/me').query({ colour: 'red' }).set(user.auth).expect(200);
  });

  it.each([
    ['no header', {}, 'missing bearer token'],
    ['a malformed header', { Authorization: 'Token abc' }, 'malformed Authorization header'],
    ['an unknown token', { Authorization: 'Bearer nrt_unknown' }, 'invalid or revoked access token'],
  ])('401 with WWW-Authenticate for %s', async (_case, headers, message) => {
    const res = await t.http.get('/users/me').set(headers).expect(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expectErrorBody(res.body, 401, 'Unauthorized');
    expect(res.body.message).toContain(message);
  });

  it('accepts the token only in the Authorization header, never in the query string', async () => {
    await t.http.get(`/users/me?access_token=${user.token}`).expect(401);
    // Nor is a query field of that name read beside the header: it is no token, and the header's stands.
    expect((await t.http.get('/users/me?access_token=other').set(user.auth).expect(200)).body.id).toBe(user.id);
  });

  it('reads the header as RFC 6750 writes it: the scheme in any case, one or more spaces before the token', async () => {
    for (const authorization of [`bearer ${user.token}`, `Bearer   ${user.token}`]) {
      expect((await t.http.get('/users/me').set('Authorization', authorization).expect(200)).body.id).toBe(user.id);
    }
    const tab = await t.http.get('/users/me').set('Authorization', `Bearer\t${user.token}`).expect(401);
    expect(tab.body.message).toContain('malformed Authorization header');
  });

  it('health and readiness answer, as the document describes them (never null)', async () => {
    const live = await t.http.get('/health').expect(200);
    expect(live.body).toEqual({ status: 'ok', info: expect.any(Object), error: {}, details: expect.any(Object) });
    expectNoNulls(live.body);
    const ready = await t.http.get('/health/ready').expect(200);
    expect(ready.body.details.database.status).toBe('up');
    expectNoNulls(ready.body);
  });

  it('serves Swagger UI at /docs, with request ids', async () => {
    const res = await t.http.get('/docs').redirects(1).expect(200);
    expect(res.text).toContain('swagger-ui');
    const json = await t.http.get('/docs-json').set('X-Request-Id', 'docs-1').expect(200);
    expect(json.headers['x-request-id']).toBe('docs-1');
  });

  it('states each validation problem once', async () => {
    const res = await t.http.post('/nodes/x/reviews?star=%205').set(user.auth).expect(400);
    expect(res.body.message).toBe('star must be an integer from 1 to 5');
  });

  describe('the OpenAPI document', () => {
    let doc: OpenAPIObject;
    beforeAll(async () => {
      doc = (await t.http.get('/docs-json').expect(200)).body as OpenAPIObject;
    });

    it('is the committed openapi.json (built on the first request, as `npm run openapi` builds it)', () => {
      // As text, so key order counts too (`npm run openapi:check` compares text).
      expect(`${JSON.stringify(doc, null, 2)}\n`).toBe(readFileSync(join(__dirname, '..', 'openapi.json'), 'utf8'));
    });

    it('documents the bearer scheme and guards the publisher routes with it', () => {
      expect(doc.components?.securitySchemes?.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
      const put = doc.paths['/publishers/{publisherId}/nodes/{nodeId}'].put;
      expect(put?.security).toEqual([{ bearer: [] }]);
      expect(Object.keys(put?.responses ?? {})).toEqual(expect.arrayContaining(['200', '400', '401', '403', '404']));
      expect(doc.paths['/nodes/{nodeId}/reviews'].post?.security).toEqual([{ bearer: [] }]);
    });

    it('describes request and reply schemas with the spec field names, category deprecated', () => {
      const schemas = doc.components?.schemas as Record<string, { properties: Record<string, Record<string, unknown>> }>;
      expect(Object.keys(schemas.NodeDto.properties)).toEqual(
        expect.arrayContaining(['banner_url', 'created_at', 'latest_version', 'preempted_app_node_names', 'tags_admin']),
      );
      expect(schemas.NodeDto.properties.category.deprecated).toBe(true);
      expect(schemas.UpdateNodeDto.properties.category.deprecated).toBe(true);
      expect(Object.keys(schemas.NodeVersionDto.properties)).toEqual(
        expect.arrayContaining(['createdAt', 'downloadUrl', 'node_id', 'app_node_extract_status']),
      );
      expect(schemas.UpdateNodeDto.properties.name).toMatchObject({ minLength: 1, maxLength: 256 });
      expect(Object.keys(schemas.ErrorResponseDto.properties)).toEqual(['statusCode', 'error', 'message', 'requestId']);
    });

    it('states the limits the server enforces, and types times as date-time', () => {
      const schemas = doc.components?.schemas as Record<string, { properties: Record<string, Record<string, unknown>> }>;
      expect(schemas.UpdateNodeDto.properties.author).toMatchObject({ maxLength: 256 });
      expect(schemas.UpdateNodeDto.properties.description).toMatchObject({ maxLength: 5000 });
      expect(schemas.UpdateNodeDto.properties.icon).toMatchObject({ format: 'uri', maxLength: 2048 });
      expect(schemas.UpdateNodeDto.properties.tags).toMatchObject({ maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 256 } });
      expect(schemas.CreateNodeVersionDto.properties.changelog).toMatchObject({ maxLength: 20000 });
      for (const [schema, property] of [['NodeDto', 'created_at'], ['NodeVersionDto', 'createdAt'], ['PublisherDto', 'createdAt'], ['VideoTaskDto', 'updated_at']]) {
        expect([schema, schemas[schema].properties[property]]).toEqual([schema, expect.objectContaining({ type: 'string', format: 'date-time' })]);
      }
    });

    it('documents the star query parameter of reviews with its range', () => {
      const star = doc.paths['/nodes/{nodeId}/reviews'].post?.parameters?.find(
        (p) => 'name' in p && p.name === 'star',
      ) as unknown as { required: boolean; schema: Record<string, unknown> };
      expect(star.required).toBe(true);
      expect(star.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 5 });
    });

    it('marks what a request needs as required and what has a default as optional', () => {
      const required = (path: string, method: 'get' | 'put') =>
        Object.fromEntries((doc.paths[path][method]?.parameters ?? []).map((p) => ('name' in p ? [p.name, p.required ?? false] : [])));
      // A signed upload URL's signature is its only credential; a result's link may also be read with a token.
      expect(required('/uploads/{versionId}', 'put')).toEqual({ versionId: true, expires: true, signature: true });
      expect(required('/proxy/video/results/{sha256}', 'get')).toMatchObject({ expires: false, signature: false });
      expect(required('/nodes', 'get')).toMatchObject({ page: false, limit: false });
    });

    /** The JSON paths of the document's schemas for which `match` holds. */
    const schemaPaths = (match: (schema: Record<string, unknown>) => boolean, value: unknown = doc, path = ''): string[] => {
      if (typeof value !== 'object' || value === null) return [];
      const here = match(value as Record<string, unknown>) ? [path] : [];
      return [...here, ...Object.entries(value).flatMap(([key, item]) => schemaPaths(match, item, `${path}/${key}`))];
    };

    it('types every integer as integer: the only numbers left are ratings', () => {
      expect(schemaPaths((schema) => schema.type === 'number')).toEqual([
        '/components/schemas/NodeDto/properties/rating',
        '/components/schemas/UpdateNodeDto/properties/rating',
      ]);
    });

    it('marks no reply field nullable: only merge-patch request bodies take null', () => {
      // A property, or the values of a property's object (a merge-patch removes a member with null).
      const nullable = schemaPaths((schema) => schema.nullable === true).map((path) => path.replace(/\/properties\/[^/]+(\/additionalProperties)?$/, ''));
      expect([...new Set(nullable)]).toEqual([
        '/components/schemas/CreatePublisherDto',
        '/components/schemas/UpdatePublisherDto',
        '/components/schemas/CreateNodeDto',
        '/components/schemas/UpdateNodeDto',
        '/components/schemas/UpdateNodeVersionDto',
      ]);
    });
  });
});

describe('HTTP pipeline when something breaks', () => {
  it('a crash is a bare 500 without internals, and readiness reports 503', async () => {
    const t = await TestApp.start();
    await t.dataSource.destroy();
    const res = await t.http.get('/nodes/anything').expect(500);
    expect(res.body).toEqual({
      statusCode: 500,
      error: 'Internal Server Error',
      message: 'internal server error',
      requestId: res.headers['x-request-id'],
    });
    const ready = await t.http.get('/health/ready').expect(503);
    expect(ready.body).toEqual({ statusCode: 503, error: 'Service Unavailable', message: 'not ready: database is down', requestId: ready.headers['x-request-id'] });
    await t.close();
  });

  // PostgreSQL behind a relay that goes away: the embedded SQLite cannot become unreachable.
  const onPostgres = process.env.TEST_DATABASE_URL ? it : it.skip;
  onPostgres('a database that cannot be reached is 503 with Retry-After (the request may succeed again), and it is served again once back', async () => {
    const relay = await TcpRelay.start(process.env.TEST_DATABASE_URL ?? '');
    const t = await TestApp.start({ DATABASE_URL: relay.url });
    try {
      await t.http.get('/nodes/anything').expect(404);
      await relay.down();
      const res = await t.http.get('/nodes/anything').expect(503);
      expect(res.body).toEqual({ statusCode: 503, error: 'Service Unavailable', message: 'the database is unavailable; retry shortly', requestId: res.headers['x-request-id'] });
      expect(res.headers['retry-after']).toBe('1');
      await relay.up();
      await waitFor(async () => (await t.http.get('/nodes/anything')).status === 404, 10000, 'the database to be served again');
    } finally {
      await relay.down();
      await t.close();
    }
  });

  // A SQLite file another process keeps locked (the CLI, a backup): PostgreSQL has no such lock.
  const onSqlite = process.env.TEST_DATABASE_URL ? it.skip : it;
  onSqlite('a SQLite file locked by another process past the busy timeout is 503 with Retry-After, and nothing is written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'locked-sqlite-'));
    const t = await TestApp.start({ DATABASE_URL: `sqlite:${join(dir, 'registry.db')}` });
    const other = (await TestDatabase.open(`sqlite:${join(dir, 'registry.db')}`)).dataSource;
    try {
      const f = await createPublisherWithNode(t, { description: 'before' });
      await other.query('BEGIN EXCLUSIVE');
      const res = await t.http.put(`/publishers/${f.publisherId}/nodes/${f.nodeId}`).set(f.owner.auth).send({ description: 'during' }).expect(503);
      expect(res.body).toEqual({ statusCode: 503, error: 'Service Unavailable', message: 'the database is unavailable; retry shortly', requestId: res.headers['x-request-id'] });
      expect(res.headers['retry-after']).toBe('1');
      await other.query('COMMIT');
      expect(await other.query('SELECT description FROM nodes WHERE id = ?', [f.nodeId])).toEqual([{ description: 'before' }]);
    } finally {
      await other.destroy();
      await t.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a bad configuration value stops startup with a message naming the variable', async () => {
    const port = process.env.PORT;
    await expect(TestApp.start({ PORT: 'eighty' })).rejects.toThrow(/PORT/);
    expect(process.env.PORT).toBe(port);
  });
});
