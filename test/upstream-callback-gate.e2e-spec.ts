import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { AddressInfo, connect } from 'node:net';
import { signHeaders } from '../src/video-proxy/callbacks/upstream-signature';
import { FakeUpstream } from './support/fake-upstream';
import { TestApp } from './support/test-app';

const CALLBACK_PATH = '/proxy/video/callbacks/upstream';
const ANNOUNCED = 40 * 1024 * 1024;

interface RawReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends the request line and headers, announces `contentLength` bytes of body
 * but sends only `bodyStart`, and reads the reply. A server that waited for
 * the body would never answer: that shows as the socket's idle timeout.
 */
async function announceBody(t: TestApp, headers: Record<string, string>, contentLength: number, bodyStart: string): Promise<RawReply> {
  const server = t.app.getHttpServer() as { address(): AddressInfo | string | null; listening: boolean; listen(port: number): void };
  if (!server.listening) {
    server.listen(0);
    await once(server as unknown as NodeJS.EventEmitter, 'listening');
  }
  const { port } = server.address() as AddressInfo;
  const socket = connect(port, '127.0.0.1');
  socket.setTimeout(5000);
  const lines = Object.entries({ Host: 'localhost', 'Content-Type': 'application/json', 'Content-Length': String(contentLength), ...headers });
  socket.write(`POST ${CALLBACK_PATH} HTTP/1.1\r\n${lines.map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n${bodyStart}`);
  let received = '';
  return new Promise<RawReply>((resolve, reject) => {
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [statusLine, ...headerLines] = received.slice(0, end).split('\r\n');
      const replyHeaders = Object.fromEntries(
        headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      const body = received.slice(end + 4);
      if (Buffer.byteLength(body) < Number(replyHeaders['content-length'] ?? 0)) return;
      socket.destroy();
      resolve({ status: Number(statusLine.split(' ')[1]), headers: replyHeaders, body });
    });
    socket.on('timeout', () => {
      socket.destroy();
      reject(new Error(`no reply while the announced body was not sent (got ${JSON.stringify(received)})`));
    });
    socket.on('error', reject);
  });
}

function signed(key: string, date = new Date()): Record<string, string> {
  return signHeaders(key, 'AK', { method: 'POST', path: CALLBACK_PATH, query: {} }, randomUUID(), date);
}

describe('Upstream callbacks are verified before their body is read', () => {
  let upstream: FakeUpstream;
  let t: TestApp;

  beforeAll(async () => {
    upstream = await FakeUpstream.start();
    t = await TestApp.start({
      VIDEO_UPSTREAM_URL: upstream.url,
      VIDEO_UPSTREAM_API_KEY: upstream.apiKey,
      PUBLIC_BASE_URL: 'https://registry.example.com',
    });
  });
  afterAll(async () => {
    await t.close();
    await upstream.close();
  });

  it.each([
    ['an unsigned', () => ({})],
    ['a stale', () => signed(upstream.apiKey, new Date(Date.now() - 10 * 60 * 1000))],
    ['a wrongly signed', () => signed('not-the-upstream-key')],
  ])('%s callback announcing 40 MiB is answered 401 before its body arrives', async (_case, headers) => {
    const reply = await announceBody(t, headers(), ANNOUNCED, '{"id":');
    expect(reply.status).toBe(401);
    expect(JSON.parse(reply.body)).toMatchObject({ statusCode: 401, error: 'Unauthorized', message: expect.stringContaining('upstream callback refused') });
  });

  it('reads a signed callback only up to what a status update echoing a maximal create needs (48 MiB): 413 beyond', async () => {
    const oversized = `{"id":"x","payload":"${'p'.repeat(48 * 1024 * 1024)}"}`;
    const reply = await t.http.post(CALLBACK_PATH).set(signed(upstream.apiKey)).set('Content-Type', 'application/json').send(oversized).expect(413);
    expect(reply.body).toMatchObject({ statusCode: 413, error: 'Payload Too Large' });
  });
});

describe('Upstream callbacks are rate limited by source address', () => {
  it('a flood of bad callbacks gets 429 with Retry-After once the address’s window is used up', async () => {
    const t = await TestApp.start({ THROTTLE_LIMIT: '3', THROTTLE_TTL_S: '60' });
    try {
      for (let i = 0; i < 3; i++) {
        await t.http.post(CALLBACK_PATH).send({ id: 'x', state: 'success' }).expect(401);
      }
      const limited = await t.http.post(CALLBACK_PATH).send({ id: 'x', state: 'success' }).expect(429);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect(limited.body).toMatchObject({ statusCode: 429, error: 'Too Many Requests' });
    } finally {
      await t.close();
    }
  });
});
