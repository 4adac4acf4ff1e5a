import { Agent, createServer, request, Server } from 'node:http';
import { performance } from 'node:perf_hooks';
import { closeServer, listenOnLoopback } from '../../../test/support/loopback-server';
import { paceRefusedConnections } from './refused-connection-pacing';

const PAUSE_MS = 1000;

describe('paceRefusedConnections', () => {
  let server: Server;
  let port: number;

  beforeAll(async () => {
    const pace = paceRefusedConnections(PAUSE_MS);
    server = createServer((req, res) =>
      pace(req, res, () => {
        res.statusCode = req.url === '/refuse' ? 401 : req.url === '/missing' ? 404 : 200;
        res.end('{}');
      }),
    );
    port = await listenOnLoopback(server);
  });
  afterAll(() => closeServer(server));

  /** One GET over `agent`; resolves with its status and when it was answered. */
  const get = (path: string, agent: Agent) =>
    new Promise<{ status: number; at: number }>((resolve, reject) => {
      request({ port, host: '127.0.0.1', path, agent }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, at: performance.now() }));
      })
        .on('error', reject)
        .end();
    });
  const connection = () => new Agent({ keepAlive: true, maxSockets: 1 });

  it('answers a refusal at once, and holds the next request on that connection until the pause has passed', async () => {
    const kept = connection();
    const other = connection();
    const refused = await get('/refuse', kept);
    expect(refused.status).toBe(401);
    // Sent together: the one on another connection is not held, the one after the refusal is.
    const [next, elsewhere] = await Promise.all([get('/ok', kept), get('/ok', other)]);
    expect(next.status).toBe(200);
    expect(next.at - refused.at).toBeGreaterThanOrEqual(PAUSE_MS - 50);
    expect(elsewhere.at).toBeLessThan(next.at);
    kept.destroy();
    other.destroy();
  });

  it('holds nothing after a reply that is no refusal, nor a request that comes after the pause', async () => {
    const kept = connection();
    const first = await get('/missing', kept);
    const second = await get('/ok', kept);
    // A 404 is an answer, not a refusal: the next request is served at once, before any pause could end.
    expect(second.at - first.at).toBeLessThan(PAUSE_MS);
    await get('/refuse', kept);
    await new Promise((resolve) => setTimeout(resolve, PAUSE_MS + 20));
    const started = performance.now();
    expect((await get('/ok', kept)).status).toBe(200);
    expect(performance.now() - started).toBeLessThan(PAUSE_MS);
    kept.destroy();
  });
});
