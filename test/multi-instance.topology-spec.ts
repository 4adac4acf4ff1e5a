import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UPSTREAM_CALLBACK_PATH } from '../src/video-proxy/callbacks/upstream-callback-url';
import { signHeaders } from '../src/video-proxy/callbacks/upstream-signature';
import { CallbackReceiver } from './support/callback-receiver';
import { FakeUpstream } from './support/fake-upstream';
import { freshPostgresDatabase } from './support/postgres';
import { flushRedis, testRedisUrl } from './support/redis';
import { expectSeenWithin, freePort, SeededUser, ServerProcess, TestDatabase, waitFor } from './support/server-process';

const REDIS_URL = testRedisUrl(12);
const describeCluster = REDIS_URL && process.env.TEST_DATABASE_URL?.startsWith('postgres') ? describe : describe.skip;

/** Requests spread over the instances in turn, as a round-robin proxy would. */
class RoundRobin {
  private next = 0;
  constructor(private readonly servers: ServerProcess[]) {}

  pick(): ServerProcess {
    const live = this.servers.filter((server) => server.child.exitCode === null && server.child.signalCode === null);
    return live[this.next++ % live.length];
  }

  fetch(path: string, init: RequestInit = {}): Promise<Response> {
    return fetch(`${this.pick().url}${path}`, init);
  }
}

function json(auth: SeededUser['auth'], body?: object, method = 'POST'): RequestInit {
  return { method, headers: { ...auth, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) };
}

/** Runs `count` jobs with at most `inFlight` at once. */
async function bounded<T>(count: number, inFlight: number, job: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array<T>(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      for (let index = next++; index < count; index = next++) results[index] = await job(index);
    }),
  );
  return results;
}

/**
 * docs/api-rules.md §8: three real server processes (`npm start`'s dist/src/main.js) on
 * one fresh PostgreSQL database and one Redis database, behind a round-robin
 * client, behave as one service. Needs TEST_DATABASE_URL (PostgreSQL),
 * TEST_REDIS_URL and a build; run by .ci/run (`npm run test:topology`).
 */
describeCluster('Three instances over one PostgreSQL database and Redis', () => {
  const redisUrl = REDIS_URL ?? '';
  const storage = mkdtempSync(join(tmpdir(), 'registry-cluster-'));
  let database: ReturnType<typeof freshPostgresDatabase>;
  let db: TestDatabase;
  let upstream: FakeUpstream;
  let receiver: CallbackReceiver;

  async function startCluster(env: Record<string, string>): Promise<ServerProcess[]> {
    const servers = await Promise.all(
      [0, 1, 2].map(async () =>
        ServerProcess.start(
          {
            DATABASE_URL: database?.url ?? '',
            REDIS_URL: redisUrl,
            STORAGE_DIR: storage,
            LOG_LEVEL: 'info',
            VIDEO_UPSTREAM_URL: upstream.url,
            VIDEO_UPSTREAM_API_KEY: upstream.apiKey,
            CALLBACK_ALLOW_PRIVATE: 'true',
            CALLBACK_RETRY_BASE_MS: '200',
            ...env,
            PORT: String(await freePort()),
          },
          { built: true },
        ),
      ),
    );
    await Promise.all(servers.map((server) => server.ready()));
    return servers;
  }

  beforeAll(async () => {
    database = freshPostgresDatabase('registry_cluster');
    if (!database) throw new Error('TEST_DATABASE_URL is not PostgreSQL');
    db = await TestDatabase.open(database.url);
    upstream = await FakeUpstream.start();
    receiver = await CallbackReceiver.start();
  });

  afterAll(async () => {
    await db?.close();
    await upstream?.close();
    await receiver?.close();
    database?.drop();
    await flushRedis(redisUrl);
    rmSync(storage, { recursive: true, force: true });
  });

  describe('with a rate limit and no trusted proxy', () => {
    let servers: ServerProcess[] = [];
    beforeAll(async () => {
      servers = await startCluster({ THROTTLE_LIMIT: '6', THROTTLE_TTL_S: '60' });
    });
    afterAll(() => Promise.all(servers.map((server) => server.stop())));

    it('one client gets one window across the instances, and a forged X-Forwarded-For opens none', async () => {
      const client = new RoundRobin(servers);
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) statuses.push((await client.fetch('/nodes')).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429]);
      for (const forged of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
        expect((await client.fetch('/nodes', { headers: { 'X-Forwarded-For': forged } })).status).toBe(429);
      }
    });
  });

  describe('unlimited', () => {
    let servers: ServerProcess[] = [];
    let client: RoundRobin;
    beforeAll(async () => {
      servers = await startCluster({ THROTTLE_LIMIT: '0' });
      client = new RoundRobin(servers);
    });
    afterAll(() => Promise.all(servers.map((server) => server.stop())));

    it('a revoked token is refused by every instance within a second', async () => {
      const user = await db.seedUser(0);
      const created = await client.fetch('/users/me/tokens', json(user.auth, { name: 'laptop' }));
      const token = (await created.json()) as { id: string; token: string };
      const laptop = { Authorization: `Bearer ${token.token}` };
      // Every instance authenticates (and caches) it.
      for (const server of servers) expect((await fetch(`${server.url}/users/me`, { headers: laptop })).status).toBe(200);
      expect((await client.fetch(`/users/me/tokens/${token.id}`, json(user.auth, undefined, 'DELETE'))).status).toBe(204);
      const revokedAt = Date.now();
      await expectSeenWithin(
        revokedAt,
        1000,
        async () => (await Promise.all(servers.map((s) => fetch(`${s.url}/users/me`, { headers: laptop })))).every((r) => r.status === 401),
        'every instance to refuse the revoked token',
      );
    });

    it('50 concurrent reviews spread over the instances keep the exact mean', async () => {
      const owner = await db.seedUser(0);
      const publisher = `cluster-${randomUUID().slice(0, 8)}`;
      expect((await client.fetch('/publishers', json(owner.auth, { id: publisher, name: 'Cluster' }))).status).toBe(201);
      expect((await client.fetch(`/publishers/${publisher}/nodes`, json(owner.auth, { id: `${publisher}-node`, name: 'N' }))).status).toBe(201);
      const reviewers = await Promise.all(Array.from({ length: 50 }, () => db.seedUser(0)));
      const stars = reviewers.map((_, i) => (i % 5) + 1);
      const replies = await Promise.all(reviewers.map((r, i) => client.fetch(`/nodes/${publisher}-node/reviews?star=${stars[i]}`, json(r.auth))));
      expect(replies.map((r) => r.status)).toEqual(replies.map(() => 200));
      const mean = stars.reduce((a, b) => a + b, 0) / stars.length;
      for (const server of servers) {
        expect(((await (await fetch(`${server.url}/nodes/${publisher}-node`)).json()) as { rating: number }).rating).toBe(mean);
      }
    });

    it('3,000 creates, 50 in flight, spread over the instances: exactly what the balance covers succeeds, never an overdraft', async () => {
      upstream.credits = 20;
      const user = await db.seedUser(20 * 2000); // enough for 2,000 of the 3,000
      const body = { model: 'videoq2-turbo', prompt: 'p', duration: 4, images: ['https://example.com/a.png'] };
      const statuses = await bounded(3000, 50, async () => (await client.fetch('/proxy/video/reference2video', json(user.auth, body))).status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(2000);
      expect(statuses.filter((s) => s === 402)).toHaveLength(1000);
      expect(await db.balance(user.id)).toBe(0);
      const ledger = await db.ledger(user.id);
      expect(ledger.reduce((sum, entry) => sum + entry.amount, 0)).toBe(0);
      expect(ledger.every((entry) => entry.balanceAfter >= 0)).toBe(true);
    });

    it('an upstream-callback nonce replayed at another instance is refused', async () => {
      const headers = signHeaders(upstream.apiKey, 'AK', { method: 'POST', path: UPSTREAM_CALLBACK_PATH, query: {} }, randomUUID());
      const init = { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify({ id: 'unknown-task', state: 'processing' }) };
      expect((await fetch(`${servers[0].url}${UPSTREAM_CALLBACK_PATH}`, init)).status).toBe(204);
      const replay = await fetch(`${servers[1].url}${UPSTREAM_CALLBACK_PATH}`, init);
      expect(replay.status).toBe(401);
    });

    it('client callbacks are delivered once each and in order per task while an instance is killed mid-way', async () => {
      upstream.credits = 20;
      const user = await db.seedUser(1000);
      const body = { model: 'videoq2-turbo', prompt: 'p', duration: 4, images: ['https://example.com/a.png'], callback_url: receiver.url };
      const tasks: string[] = [];
      for (let i = 0; i < 9; i++) {
        const reply = await client.fetch('/proxy/video/reference2video', json(user.auth, body));
        expect(reply.status).toBe(200);
        tasks.push(((await reply.json()) as { task_id: string }).task_id);
      }
      const report = (taskId: string, state: string) => {
        const headers = signHeaders(upstream.apiKey, 'AK', { method: 'POST', path: UPSTREAM_CALLBACK_PATH, query: {} }, randomUUID());
        const extra = state === 'success' ? { credits: 20, creations: [{ id: 'c', url: 'https://example.com/v.mp4', cover_url: 'https://example.com/c.jpg' }] } : {};
        return client.fetch(UPSTREAM_CALLBACK_PATH, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify({ id: taskId, state, ...extra }) });
      };
      const states = ['queueing', 'processing', 'success'];
      for (const [round, state] of states.entries()) {
        if (round === 1) await servers[2].stop('SIGKILL'); // in the middle: its deliveries must still go out, once
        const replies = await Promise.all(tasks.map((taskId) => report(taskId, state)));
        expect(replies.map((r) => r.status)).toEqual(replies.map(() => 204));
      }
      // A delivery leased by the killed instance is taken over when its lease (60 s) expires.
      await waitFor(() => new Set(receiver.received.map((d) => d.headers['x-delivery-id'])).size >= tasks.length * states.length, 150_000, 'every callback');
      for (const taskId of tasks) {
        const deliveries = receiver.received.filter((d) => d.body.task_id === taskId);
        const firstSeen = [...new Map(deliveries.map((d) => [d.headers['x-delivery-id'], d.body.state])).values()];
        expect(firstSeen).toEqual(states);
        // A receiver deduplicating by X-Delivery-Id sees each once; only a delivery cut off by the kill may repeat.
        expect(deliveries.length - firstSeen.length).toBeLessThanOrEqual(1);
      }
    }, 240_000);
  });
});
