import { Agent, createServer, request, Server } from 'node:http';
import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { closeServer, listenOnLoopback } from '../../../test/support/loopback-server';
import { paceRefusedConnections } from './refused-connection-pacing';
import { ProxyTrust } from './trust-proxy';

const PAUSE_MS = 1000;
const NO_PROXY: ProxyTrust = () => false;

/** A server whose `/refuse` answers 401, `/missing` 404, anything else 200, behind the pacing. */
async function pacedServer(trust: ProxyTrust, pauseMs: number): Promise<{ server: Server; port: number }> {
  const pace = paceRefusedConnections(trust, pauseMs);
  const server = createServer((req, res) =>
    pace(req, res, () => {
      res.statusCode = req.url === '/refuse' ? 401 : req.url === '/missing' ? 404 : 200;
      res.end('{}');
    }),
  );
  return { server, port: await listenOnLoopback(server) };
}

/** One GET over `agent`; resolves with its status and when it was answered. */
const get = (port: number, path: string, agent: Agent) =>
  new Promise<{ status: number; at: number }>((resolve, reject) => {
    request({ port, host: '127.0.0.1', path, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, at: performance.now() }));
    })
      .on('error', reject)
      .end();
  });
const connection = () => new Agent({ keepAlive: true, maxSockets: 1 });

describe('paceRefusedConnections', () => {
  let paced: { server: Server; port: number };

  beforeAll(async () => (paced = await pacedServer(NO_PROXY, PAUSE_MS)));
  afterAll(() => closeServer(paced.server));

  it('answers a refusal at once, and holds the next request on that connection until the pause has passed', async () => {
    const kept = connection();
    const other = connection();
    // Timed from before the refused request: this client may notice the refusal late, but not before it was sent.
    const refusedRequestStart = performance.now();
    const refused = await get(paced.port, '/refuse', kept);
    expect(refused.status).toBe(401);
    // Sent together: the one on another connection is not held, the one after the refusal is.
    const [next, elsewhere] = await Promise.all([get(paced.port, '/ok', kept), get(paced.port, '/ok', other)]);
    expect(next.status).toBe(200);
    expect(next.at - refusedRequestStart).toBeGreaterThanOrEqual(PAUSE_MS - 1);
    expect(elsewhere.at).toBeLessThan(next.at);
    kept.destroy();
    other.destroy();
  });

  it('holds nothing after a reply that is no refusal, nor a request that comes after the pause', async () => {
    const kept = connection();
    const first = await get(paced.port, '/missing', kept);
    const second = await get(paced.port, '/ok', kept);
    // A 404 is an answer, not a refusal: the next request is served at once, before any pause could end.
    expect(second.at - first.at).toBeLessThan(PAUSE_MS);
    await get(paced.port, '/refuse', kept);
    await new Promise((resolve) => setTimeout(resolve, PAUSE_MS + 20));
    const started = performance.now();
    expect((await get(paced.port, '/ok', kept)).status).toBe(200);
    expect(performance.now() - started).toBeLessThan(PAUSE_MS);
    kept.destroy();
  });

  it('paces pipelined requests too: one refusal per pause, however many are sent at once', async () => {
    const pauseMs = 300;
    const { server, port } = await pacedServer(NO_PROXY, pauseMs);
    try {
      const socket = connect(port, '127.0.0.1');
      const answeredAt: number[] = [];
      const started = performance.now();
      socket.on('data', (chunk: Buffer) => {
        for (const _ of chunk.toString('latin1').matchAll(/HTTP\/1\.1 401/g)) answeredAt.push(performance.now() - started);
      });
      socket.write('GET /refuse HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(3));
      await new Promise<void>((resolve) => socket.on('data', () => answeredAt.length === 3 && resolve()));
      socket.destroy();
      expect(answeredAt[1]).toBeGreaterThanOrEqual(pauseMs - 20);
      expect(answeredAt[2]).toBeGreaterThanOrEqual(2 * pauseMs - 20);
    } finally {
      await closeServer(server);
    }
  });

  it('does not pause a trusted proxy’s connections, which carry other clients’ requests', async () => {
    const { server, port } = await pacedServer(() => true, PAUSE_MS);
    const kept = connection();
    try {
      const refused = await get(port, '/refuse', kept);
      const next = await get(port, '/ok', kept);
      expect(next.at - refused.at).toBeLessThan(PAUSE_MS);
    } finally {
      kept.destroy();
      await closeServer(server);
    }
  });
});
