import { Agent, request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeVersionEntity } from '../src/nodes/entities/node-version.entity';
import { NodeEntity } from '../src/nodes/entities/node.entity';
import { CreditLedgerEntryEntity } from '../src/users/entities/credit-ledger-entry.entity';
import { UserEntity } from '../src/users/entities/user.entity';
import { FakeUpstream } from './support/fake-upstream';
import { addVersions, createPublisherWithNode, PublisherFixture } from './support/registry-fixtures';
import { TestApp, TestUser } from './support/test-app';

/**
 * A bounded soak: SOAK_SECONDS (default 60) of mixed traffic over loopback
 * against every route, with concurrent reviews, updates, credit grants and
 * video tasks. Then: no 5xx at all, the rating and every balance exactly what
 * the requests sent imply, and no growth in open handles or heap beyond a
 * small bound. Run by `npm run test:soak` (with --expose-gc) in .ci/run.
 */
const SECONDS = Number(process.env.SOAK_SECONDS ?? 60);
const WORKERS = 12;
const REVIEWERS_PER_WORKER = 2;
const INITIAL_CREDITS = 1_000_000;
const TASK_PRICE = 10;
const HEAP_GROWTH_LIMIT_MB = 48;

interface Reply {
  status: number;
  body: Record<string, unknown>;
}

function heapUsedMb(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

describe(`Soak: ${SECONDS} s of mixed traffic`, () => {
  let t: TestApp;
  let upstream: FakeUpstream;
  let dir: string;
  let f: PublisherFixture;
  let admin: TestUser;
  let videoUsers: TestUser[];
  let reviewers: TestUser[][];
  let versionIds: Record<string, string>;
  let agent: Agent;
  let port: number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'registry-soak-'));
    upstream = await FakeUpstream.start();
    upstream.credits = TASK_PRICE;
    t = await TestApp.start({
      // A real file with WAL, as deployed (unless TEST_DATABASE_URL picks PostgreSQL).
      DATABASE_URL: process.env.TEST_DATABASE_URL ?? `sqlite:${join(dir, 'soak.db')}`,
      VIDEO_UPSTREAM_URL: upstream.url,
      VIDEO_UPSTREAM_API_KEY: upstream.apiKey,
    });
    port = (t.app.getHttpServer().address() as AddressInfo).port;
    f = await createPublisherWithNode(t, { description: 'soak' });
    versionIds = await addVersions(t, f, '1.0.0', '1.1.0');
    admin = await t.createUser({ admin: true });
    videoUsers = await Promise.all([0, 1, 2].map(() => t.createUser({ credits: INITIAL_CREDITS })));
    reviewers = [];
    for (let w = 0; w < WORKERS; w += 1) {
      reviewers.push(await Promise.all(Array.from({ length: REVIEWERS_PER_WORKER }, () => t.createUser())));
    }
  });

  afterAll(async () => {
    await t?.close();
    await upstream?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function send(method: string, path: string, user?: TestUser, body?: unknown): Promise<Reply> {
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method,
          path,
          agent,
          timeout: 30_000,
          headers: {
            ...(user ? user.auth : {}),
            ...(payload === undefined ? {} : { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) }),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({ status: res.statusCode ?? 0, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} });
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${path} hung for 30 s`)));
      req.on('error', reject);
      req.end(payload);
    });
  }

  it('answers every request without a 5xx, keeps rating and balances exact, and leaks nothing', async () => {
    const base = `/publishers/${f.publisherId}/nodes/${f.nodeId}`;
    const lastStar = new Map<string, number>();
    const granted = new Map<string, number>(videoUsers.map((u) => [u.id, 0]));
    const charged = new Map<string, number>(videoUsers.map((u) => [u.id, 0]));
    const descriptions = new Set<string>(['soak']);
    const changelogs = new Set<string>();
    const taskIds: { user: TestUser; taskId: string }[] = [];
    const statuses = new Map<string, number>();
    const failures: string[] = [];
    let versionCount = 0;

    const pick = <T>(items: T[]): T => items[Math.floor(Math.random() * items.length)];
    const record = (name: string, reply: Reply, expected: number[]) => {
      statuses.set(`${name} ${reply.status}`, (statuses.get(`${name} ${reply.status}`) ?? 0) + 1);
      if (!expected.includes(reply.status)) failures.push(`${name}: ${reply.status} ${JSON.stringify(reply.body).slice(0, 200)}`);
    };

    /** One request of the mix; each worker owns its reviewers, so "last star" is well defined. */
    async function step(worker: number, n: number): Promise<void> {
      const roll = Math.random();
      const videoUser = videoUsers[worker % videoUsers.length];
      if (roll < 0.2) {
        const reviewer = pick(reviewers[worker]);
        const star = 1 + Math.floor(Math.random() * 5);
        const reply = await send('POST', `/nodes/${f.nodeId}/reviews?star=${star}`, reviewer);
        record('review', reply, [200]);
        if (reply.status === 200) lastStar.set(reviewer.id, star);
      } else if (roll < 0.32) {
        const description = `soak ${worker}-${n}`;
        descriptions.add(description);
        record('PUT node', await send('PUT', base, f.owner, { description, tags: [`w${worker}`] }), [200]);
      } else if (roll < 0.42) {
        const changelog = `changelog ${worker}-${n}`;
        changelogs.add(changelog);
        record('PUT version', await send('PUT', `${base}/versions/1.1.0`, f.member, { changelog }), [200]);
      } else if (roll < 0.5) {
        const reply = await send('POST', '/proxy/video/reference2video', videoUser, { duration: 2, prompt: `soak ${worker}-${n}` });
        record('video', reply, [200]);
        if (reply.status === 200) {
          charged.set(videoUser.id, (charged.get(videoUser.id) ?? 0) + (reply.body.credits as number));
          upstream.taskStatus.set(reply.body.task_id as string, { state: 'processing', credits: TASK_PRICE });
          taskIds.push({ user: videoUser, taskId: reply.body.task_id as string });
        }
        upstream.requests.length = 0; // the fake keeps what it saw; only memory the soak itself would grow
      } else if (roll < 0.53) {
        const amount = 1 + Math.floor(Math.random() * 50);
        const reply = await send('POST', `/admin/users/${videoUser.id}/credits`, admin, { amount });
        record('grant', reply, [200, 201]);
        if (reply.status < 300) granted.set(videoUser.id, (granted.get(videoUser.id) ?? 0) + amount);
      } else if (roll < 0.55) {
        versionCount += 1;
        record('POST version', await send('POST', `${base}/versions`, f.owner, { version: `2.${worker}.${versionCount}` }), [201]);
      } else if (roll < 0.63) {
        // Hostile or wrong requests: a clear 4xx, never a 5xx.
        const [name, reply] = pick<[string, () => Promise<Reply>]>([
          ['bad review', () => send('POST', `/nodes/${f.nodeId}/reviews?star=9`, pick(reviewers[worker]))],
          ['bad node body', () => send('PUT', base, f.owner, '{"tags": "not-a-list", "__proto__": {"status": "NodeStatusBanned"}}')],
          ['broken JSON', () => send('PUT', base, f.owner, '{"description": ')],
          ['not a member', () => send('PUT', base, pick(reviewers[worker]), { description: 'hijack' })],
          ['no token', () => send('PUT', `${base}/versions/1.0.0`, undefined, { changelog: 'anon' })],
          ['bad video', () => send('POST', '/proxy/video/reference2video', videoUser, { duration: 99 })],
          ['unknown node', () => send('GET', `/nodes/${encodeURIComponent("x' OR 1=1 --")}`)],
        ]);
        record(name, await reply(), [400, 401, 403, 404]);
      } else {
        const [name, path, user] = pick<[string, string, TestUser | undefined]>([
          ['GET node', `/nodes/${f.nodeId}`, undefined],
          ['GET nodes', `/nodes?search=${encodeURIComponent(f.nodeId.slice(0, 6))}&limit=5`, undefined],
          ['GET versions', `/nodes/${f.nodeId}/versions`, undefined],
          ['GET publisher', `/publishers/${f.publisherId}`, undefined],
          ['GET me', '/users/me', videoUser],
          ['GET ledger', '/users/me/ledger?limit=5', videoUser],
          ['GET webhook secret', '/users/me/webhook-secret', videoUser],
          ['GET tasks', '/proxy/video/tasks?limit=5', videoUser],
          ['GET health', '/health/ready', undefined],
        ]);
        record(name, await send('GET', path, user), [200]);
        const task = taskIds.length > 0 ? pick(taskIds) : undefined;
        if (task && Math.random() < 0.3) {
          record('GET task', await send('GET', `/proxy/video/tasks/${task.taskId}`, task.user), [200]);
        }
      }
    }

    const handlesBefore = process.getActiveResourcesInfo();
    agent = new Agent({ keepAlive: true, maxSockets: WORKERS });
    const started = Date.now();
    const deadline = started + SECONDS * 1000;
    let heapAfterWarmup: number | undefined;
    let requests = 0;
    await Promise.all(
      Array.from({ length: WORKERS }, async (_unused, worker) => {
        for (let n = 0; Date.now() < deadline; n += 1) {
          await step(worker, n);
          requests += 1;
          if (worker === 0 && heapAfterWarmup === undefined && Date.now() - started > SECONDS * 100) {
            heapAfterWarmup = heapUsedMb();
          }
        }
      }),
    );
    agent.destroy();

    // Zero 5xx (and every request got the status its kind must get).
    expect(failures).toEqual([]);
    expect(requests).toBeGreaterThan(SECONDS * 20);

    // Rating: the exact mean of each reviewer's last star, in the database and in the reply.
    const stars = [...lastStar.values()];
    const expectedRating = stars.reduce((sum, star) => sum + star, 0) / stars.length;
    const node = await t.dataSource.getRepository(NodeEntity).findOneByOrFail({ id: f.nodeId });
    expect(node.rating).toBeCloseTo(expectedRating, 10);
    expect((await send('GET', `/nodes/${f.nodeId}`)).body.rating).toBeCloseTo(expectedRating, 10);
    // Concurrent updates: the stored values are ones that were sent.
    expect(descriptions.has(node.description ?? '')).toBe(true);
    const version = await t.dataSource.getRepository(NodeVersionEntity).findOneByOrFail({ id: versionIds['1.1.0'] });
    expect(changelogs.has(version.changelog ?? '')).toBe(true);

    // Balances: initial + granted − charged, and the ledger adds up to the same figure.
    for (const user of videoUsers) {
      const expected = INITIAL_CREDITS + (granted.get(user.id) ?? 0) - (charged.get(user.id) ?? 0);
      const stored = await t.dataSource.getRepository(UserEntity).findOneByOrFail({ id: user.id });
      expect({ user: user.id, credits: stored.credits }).toEqual({ user: user.id, credits: expected });
      const ledger = await t.dataSource.getRepository(CreditLedgerEntryEntity).findBy({ userId: user.id });
      expect(ledger.reduce((sum, entry) => sum + entry.amount, 0)).toBe(expected);
    }

    // Nothing left open by the traffic once idle keep-alive connections time out (5 s on the
    // upstream's side), and no heap growth beyond a small bound.
    for (let waited = 0; process.getActiveResourcesInfo().length > handlesBefore.length && waited < 10_000; waited += 250) {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const handlesAfter = process.getActiveResourcesInfo();
    expect({ extraHandles: Math.max(0, handlesAfter.length - handlesBefore.length), handlesBefore }).toEqual({
      extraHandles: 0,
      handlesBefore: handlesAfter.length > handlesBefore.length ? handlesAfter : handlesBefore,
    });
    const growth = heapUsedMb() - (heapAfterWarmup ?? 0);
    console.log(
      `soak: ${requests} requests in ${SECONDS} s; heap growth after warm-up ${growth.toFixed(1)} MB; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`,
    );
    expect(growth).toBeLessThan(HEAP_GROWTH_LIMIT_MB);
  }, (SECONDS + 120) * 1000);
});
