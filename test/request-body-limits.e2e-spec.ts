import { randomUUID } from 'node:crypto';
import { Agent } from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import { MIB } from '../src/common/http/json-body-limits';
import { REFUSED_BODY_DRAIN } from '../src/common/http/refused-body-drain';
import { REFUSED_CONNECTION_PAUSE_MS } from '../src/common/http/refused-connection-pacing';
import { signHeaders } from '../src/video-proxy/callbacks/upstream-signature';
import { expectErrorBody } from './support/error-body';
import { FakeUpstream } from './support/fake-upstream';
import { announceBody, sendBody, sendEndlessBody, sendExpectingContinue } from './support/raw-http';
import { addVersions, createPublisherWithNode, PublisherFixture } from './support/registry-fixtures';
import { TestApp, TestUser } from './support/test-app';
import { makeZip } from './support/zip';

const CALLBACK_PATH = '/proxy/video/callbacks/upstream';
const VIDEO_PATH = '/proxy/video/reference2video';
/** Far above any real reply time here; the real figures are the bench's (bench/README.md). */
const GENEROUS_MS = 3000;

/** `{"prompt": [[], [], …]}`: `count` empty arrays in one field, the cheapest way to make millions of values. */
function emptyArrays(count: number): string {
  return `{"prompt":[${'[],'.repeat(count - 1)}[]]}`;
}

interface Attack {
  name: string;
  body: Buffer;
  headers: Record<string, string>;
}

const ATTACKS: Attack[] = [
  { name: '4M empty arrays (12 MB)', body: Buffer.from(emptyArrays(4_000_000)), headers: { 'Content-Type': 'application/json' } },
  {
    name: '10M empty arrays gzip-compressed (30 MB inflated)',
    body: gzipSync(emptyArrays(10_000_000), { level: 9 }),
    headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
  },
];

describe('Request bodies: the token before the body, limits while it streams in', () => {
  let upstream: FakeUpstream;
  let t: TestApp;
  let user: TestUser;
  let f: PublisherFixture;

  beforeAll(async () => {
    upstream = await FakeUpstream.start();
    t = await TestApp.start({ VIDEO_UPSTREAM_URL: upstream.url, VIDEO_UPSTREAM_API_KEY: upstream.apiKey, PUBLIC_BASE_URL: 'https://registry.example.com' });
    // No credits: the limits hold before any rule about balances.
    user = await t.createUser();
    f = await createPublisherWithNode(t);
  });
  afterAll(async () => {
    await t.close();
    await upstream.close();
  });

  const signed = (): Record<string, string> =>
    signHeaders(upstream.apiKey, 'AK', { method: 'POST', path: CALLBACK_PATH, query: {} }, randomUUID(), new Date());

  /** Every route that takes a JSON body; `credential` is what lets a caller in, `anonymous` the status without it. */
  const routes = () => [
    { name: 'video create', method: 'POST', path: VIDEO_PATH, credential: user.auth, anonymous: 401 },
    { name: 'node PUT', method: 'PUT', path: `/publishers/${f.publisherId}/nodes/${f.nodeId}`, credential: f.owner.auth, anonymous: 401 },
    // The CLI's form of this route carries its token in the body, so an anonymous body is read, within the default limits.
    { name: 'version publish', method: 'POST', path: `/publishers/${f.publisherId}/nodes/${f.nodeId}/versions`, credential: f.owner.auth, anonymous: 413 },
    { name: 'review', method: 'POST', path: `/nodes/${f.nodeId}/reviews?star=5`, credential: user.auth, anonymous: 401 },
    { name: 'upstream callback', method: 'POST', path: CALLBACK_PATH, credential: signed(), anonymous: 401 },
  ];

  it.each(ATTACKS.flatMap((attack) => [true, false].map((withCredential) => [attack.name, withCredential, attack] as const)))(
    '%s (credential: %s) is refused quickly on every route while /health/ready keeps answering, and changes nothing',
    async (_name, withCredential, attack) => {
      for (const route of routes()) {
        const credential = withCredential ? (route.name === 'upstream callback' ? signed() : route.credential) : {};
        const started = Date.now();
        const refused = sendBody(t, route.method, route.path, { ...attack.headers, ...credential }, attack.body);
        const health = t.http.get('/health/ready');
        const [reply, ready] = await Promise.all([refused, health]);
        const expected = withCredential ? 413 : route.anonymous;
        expect({ route: route.name, status: reply.status }).toEqual({ route: route.name, status: expected });
        expectErrorBody(reply.body, expected, expected === 413 ? 'Payload Too Large' : 'Unauthorized');
        expect(Date.now() - started).toBeLessThan(GENEROUS_MS);
        expect(ready.status).toBe(200);
      }
      expect(upstream.requests).toHaveLength(0);
      const node = await t.http.get(`/nodes/${f.nodeId}`).expect(200);
      expect(node.body).toMatchObject({ name: 'A node', rating: 0 });
      expect(node.body.latest_version).toBeUndefined();
      expect((await t.http.get('/users/me').set(user.auth).expect(200)).body.credits).toBe(0);
    },
  );

  it.each(['video create', 'node PUT', 'review'])('%s without a token is answered 401 before its body is sent', async (name) => {
    const route = routes().find((candidate) => candidate.name === name)!;
    const reply = await announceBody(t, { method: route.method, path: route.path, headers: {}, contentLength: 40 * 1024 * 1024, bodyStart: '{"prompt":[' });
    expect(reply.status).toBe(401);
    expect(reply.headers['www-authenticate']).toBe('Bearer');
  });

  it('names the limit a body crossed: depth, values, elements of one array, bytes', async () => {
    const path = `/publishers/${f.publisherId}/nodes/${f.nodeId}`;
    const put = async (body: string | Buffer, headers: Record<string, string> = {}) =>
      sendBody(t, 'PUT', path, { ...f.owner.auth, 'Content-Type': 'application/json', ...headers }, Buffer.from(body));
    const refusal = async (body: string | Buffer, headers: Record<string, string> = {}) => {
      const reply = await put(body, headers);
      expectErrorBody(reply.body, 413, 'Payload Too Large');
      return reply.body.message;
    };
    expect(await refusal(`{"translations":${'{"a":'.repeat(40)}1${'}'.repeat(40)}}`)).toBe(
      'request body is nested more than 32 levels deep',
    );
    expect(await refusal(`{"tags":[${Array.from({ length: 1001 }, () => '"t"').join(',')}]}`)).toBe(
      'request body has an array of more than 1000 elements',
    );
    const manyValues = `{"translations":{${Array.from({ length: 101 }, (_, i) => `"l${i}":{${Array.from({ length: 100 }, (__, j) => `"k${j}":"v"`).join(',')}}`).join(',')}}}`;
    expect(await refusal(manyValues)).toBe('request body holds more than 10000 values');
    // A compressed body's byte limit counts the inflated bytes.
    const inflatesPastLimit = gzipSync(JSON.stringify({ description: 'd'.repeat(2 * 1024 * 1024) }));
    expect(inflatesPastLimit.length).toBeLessThan(10_000);
    expect(await refusal(inflatesPastLimit, { 'Content-Encoding': 'gzip' })).toBe(
      'request body is larger than 1 MiB',
    );
    expect((await t.http.get(`/nodes/${f.nodeId}`).expect(200)).body.tags).toEqual([]);
  });

  it('accepts a compressed body within the limits, and refuses an unknown or broken encoding', async () => {
    const path = `/publishers/${f.publisherId}/nodes/${f.nodeId}`;
    const put = async (body: Buffer, encoding: string) =>
      sendBody(t, 'PUT', path, { ...f.owner.auth, 'Content-Type': 'application/json', 'Content-Encoding': encoding }, body);
    expect((await put(gzipSync(JSON.stringify({ tags: ['compressed'] })), 'gzip')).status).toBe(200);
    expect((await t.http.get(`/nodes/${f.nodeId}`).expect(200)).body.tags).toEqual(['compressed']);
    expectErrorBody((await put(Buffer.from('{}'), 'zstd')).body, 415, 'Unsupported Media Type');
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const broken = await put(Buffer.from('not compressed at all'), encoding);
      expectErrorBody(broken.body, 400, 'Bad Request');
      expect(broken.body.message).toBe('the request body could not be decompressed');
    }
    await t.http.put(path).set(f.owner.auth).send({ tags: [] }).expect(200);
  });

  it('refuses a malformed Content-Type parameter with 400, before any route', async () => {
    for (const header of ['application/json; charset', 'application/json;;', 'application/json; a=b c']) {
      const res = await sendBody(t, 'POST', '/bulk/nodes/versions', { 'Content-Type': header }, Buffer.from('{}'));
      expectErrorBody(res.body, 400, 'Bad Request');
      expect(res.body.message).toBe('the Content-Type header is malformed');
    }
  });

  describe('the rest of a refused body', () => {
    /** What the socket buffers of both ends may hold beyond what the service read (the kernel's, on loopback). */
    const BUFFERED = 32 * MIB;

    it.each([
      ['with a token', 413, 'Payload Too Large'],
      ['without a token', 401, 'Unauthorized'],
    ] as const)(
      '%s: a client that never stops sending gets its reply, /health/ready keeps answering, and the drain stops at its cap',
      async (_case, status, error) => {
        let sending = true;
        const outcome = sendEndlessBody(t, {
          method: 'POST',
          path: VIDEO_PATH,
          headers: { 'Content-Type': 'application/json', ...(status === 413 ? user.auth : {}) },
          start: '{"prompt":[',
          repeat: '[],',
        }).finally(() => (sending = false));
        let probes = 0;
        while (sending) {
          expect((await t.http.get('/health/ready')).status).toBe(200);
          probes += 1;
          await sleep(50);
        }
        const { reply, replyMs, closedAfterReplyMs, closedAfterStartMs, bodyBytesSent } = await outcome;
        expect(reply.status).toBe(status);
        expectErrorBody(JSON.parse(reply.body) as Record<string, unknown>, status, error);
        expect(reply.body).toContain(status === 413 ? 'request body has an array of more than 100 elements' : 'missing bearer token');
        expect(replyMs).toBeLessThan(GENEROUS_MS);
        expect(probes).toBeGreaterThan(0);
        // Closed at a cap: by the byte cap (what the client got to send is at most that, and what the sockets buffer),
        // else by the time cap; and read at the bounded rate, so not before the byte cap's bytes take at that rate.
        expect(bodyBytesSent).toBeLessThan(REFUSED_BODY_DRAIN.maxBytes + BUFFERED);
        expect(closedAfterReplyMs).toBeLessThan(REFUSED_BODY_DRAIN.maxMs + GENEROUS_MS);
        expect(closedAfterStartMs).toBeGreaterThan((REFUSED_BODY_DRAIN.maxBytes / REFUSED_BODY_DRAIN.bytesPerSecond) * 1000 * 0.9);
      },
    );

    it('a body whose Content-Length is over the limit is 413 at once; sent whole, its connection serves the next request', async () => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const body = Buffer.alloc(49 * MIB, ' ');
        const headers = { ...user.auth, 'Content-Type': 'application/json' };
        const refused = await sendBody(t, 'POST', VIDEO_PATH, headers, body, { agent, untilSent: true });
        expect(refused.status).toBe(413);
        expectErrorBody(refused.body, 413, 'Payload Too Large');
        expect(refused.body.message).toBe('request body is larger than 48 MiB');
        const next = await sendBody(t, 'GET', '/health/ready', {}, Buffer.alloc(0), { agent });
        expect(next.status).toBe(200);
        expect(next.reusedSocket).toBe(true);
      } finally {
        agent.destroy();
      }
    });
  });

  it('a connection whose request was refused has its next request served only after a pause (docs/request-bodies.md)', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      // Timed from before the refused request: the pause starts when the server has sent the refusal, which this
      // client may notice some milliseconds later on a busy machine, so timing from its arrival here could undercount.
      const refusedRequestStart = performance.now();
      const refused = await sendBody(t, 'POST', VIDEO_PATH, { 'Content-Type': 'application/json' }, Buffer.from('{}'), { agent });
      expect(refused.status).toBe(401);
      const next = await sendBody(t, 'GET', '/health/ready', {}, Buffer.alloc(0), { agent });
      expect(next).toMatchObject({ status: 200, reusedSocket: true });
      expect(performance.now() - refusedRequestStart).toBeGreaterThanOrEqual(REFUSED_CONNECTION_PAUSE_MS - 1);
    } finally {
      agent.destroy();
    }
  });

  describe('a client that waits for a 100 Continue (Expect: 100-continue, as curl sends bodies over 1 MiB)', () => {
    it.each(['video create', 'node PUT', 'review'])('%s without a token: 401 and no 100, so the body is never sent', async (name) => {
      const route = routes().find((candidate) => candidate.name === name)!;
      const reply = await sendExpectingContinue(t, route.method, route.path, {}, Buffer.from('{"description":"never sent"}'));
      // Node closes a connection whose client was not told to continue: the unsent body cannot be taken for a request.
      expect(reply).toMatchObject({ status: 401, continued: false, closed: true });
    });

    it('with a token, the 100 comes when the body is read and the request is served', async () => {
      const body = Buffer.from(JSON.stringify({ description: 'sent after the 100' }));
      const reply = await sendExpectingContinue(t, 'PUT', `/publishers/${f.publisherId}/nodes/${f.nodeId}`, f.owner.auth, body);
      expect(reply).toMatchObject({ status: 200, continued: true });
      expect(JSON.parse(reply.body)).toMatchObject({ description: 'sent after the 100' });
      expect((await t.http.get(`/nodes/${f.nodeId}`).set(f.owner.auth).expect(200)).body.description).toBe('sent after the 100');
    });

    it('a write with a query parameter it does not take: 400 and no 100, so the body is never sent', async () => {
      const body = Buffer.from(JSON.stringify({ description: 'never sent', zz: 1 }));
      const reply = await sendExpectingContinue(t, 'PUT', `/publishers/${f.publisherId}/nodes/${f.nodeId}?x=1`, f.owner.auth, body);
      expect(reply).toMatchObject({ status: 400, continued: false });
      expect((JSON.parse(reply.body) as { message: string }).message).toBe('property x should not exist');
      expect((await t.http.get(`/nodes/${f.nodeId}`).set(f.owner.auth).expect(200)).body.description).not.toBe('never sent');
    });

    it('an expectation other than 100-continue: 417 in the error shape, with its X-Request-Id, and nothing served', async () => {
      const body = Buffer.from(JSON.stringify({ description: 'never applied' }));
      const reply = await sendBody(t, 'PUT', `/publishers/${f.publisherId}/nodes/${f.nodeId}`, { ...f.owner.auth, 'Content-Type': 'application/json', Expect: 'bogus', 'X-Request-Id': 'expects-bogus' }, body);
      expectErrorBody(reply.body, 417, 'Expectation Failed');
      expect([reply.headers['x-request-id'], reply.body.requestId]).toEqual(['expects-bogus', 'expects-bogus']);
      expect((await t.http.get(`/nodes/${f.nodeId}`).set(f.owner.auth).expect(200)).body.description).not.toBe('never applied');
    });

    it('an archive upload gets its 100 once the member is checked, none without a token or for a non-member', async () => {
      const g = await createPublisherWithNode(t);
      await addVersions(t, g, '1.0.0');
      const path = `/publishers/${g.publisherId}/nodes/${g.nodeId}/versions/1.0.0/archive`;
      const zip = makeZip({ '__init__.py': 'NODE_CLASS_MAPPINGS = {}\n' });
      const anonymous = await sendExpectingContinue(t, 'PUT', path, { 'Content-Type': 'application/zip' }, zip);
      expect(anonymous).toMatchObject({ status: 401, continued: false });
      const outsider = await sendExpectingContinue(t, 'PUT', path, { ...user.auth, 'Content-Type': 'application/zip' }, zip);
      expect(outsider).toMatchObject({ status: 403, continued: false });
      const member = await sendExpectingContinue(t, 'PUT', path, { ...g.member.auth, 'Content-Type': 'application/zip' }, zip);
      expect(member).toMatchObject({ status: 200, continued: true });
      expect(JSON.parse(member.body).downloadUrl).toMatch(/\.zip$/);
    });
  });

  it('still accepts a legitimate 40 MiB create (seven data-URI images and a 1 MiB payload), plain or compressed', async () => {
    const payer = await t.createUser({ credits: 1000 });
    const image = `data:image/png;base64,${'iVBORw0KGgo'.repeat(Math.floor((5.6 * 1024 * 1024) / 11))}`;
    const body = JSON.stringify({ duration: 1, payload: 'p'.repeat(1_048_576), images: Array.from({ length: 7 }, () => image) });
    expect(Buffer.byteLength(body)).toBeGreaterThan(40 * 1024 * 1024);
    const plain = await sendBody(t, 'POST', VIDEO_PATH, { ...payer.auth, 'Content-Type': 'application/json' }, Buffer.from(body));
    expect(plain.status).toBe(200);
    expect(plain.body.images).toHaveLength(7);
    const compressed = await sendBody(t, 'POST', VIDEO_PATH, { ...payer.auth, 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }, gzipSync(body));
    expect(compressed.status).toBe(200);
    expect(upstream.requests).toHaveLength(2);
    expect((upstream.requests[1].body as { payload: string }).payload).toHaveLength(1_048_576);
  });
});
