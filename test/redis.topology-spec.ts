import { Logger } from '@nestjs/common';
import { SharedRedis } from '../src/common/redis/shared-redis';
import { AccessTokenEntity } from '../src/users/entities/access-token.entity';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectSeenWithin, waitFor } from './support/server-process';
import { flushRedis, testRedisUrl } from './support/redis';
import { TcpRelay } from './support/tcp-relay';
import { createPublisherWithNode } from './support/registry-fixtures';
import { TestApp } from './support/test-app';

const REDIS_URL = testRedisUrl(11);
const describeWithRedis = REDIS_URL ? describe : describe.skip;

/**
 * docs/api-rules.md §8 with REDIS_URL, in process: two apps on one database and one
 * Redis behave as one service, and an app whose Redis goes away keeps serving.
 * (test/multi-instance.topology-spec.ts does the same with real processes.)
 */
describeWithRedis('Shared state in Redis', () => {
  const redisUrl = REDIS_URL ?? '';
  const dir = mkdtempSync(join(tmpdir(), 'registry-redis-'));
  // One database file both apps open, as instances share one database (or TEST_DATABASE_URL).
  const database = process.env.TEST_DATABASE_URL ?? `sqlite:${join(dir, 'shared.sqlite')}`;

  afterEach(() => flushRedis(redisUrl));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function twoInstances(env: Record<string, string> = {}): Promise<[TestApp, TestApp]> {
    const a = await TestApp.start({ DATABASE_URL: database, REDIS_URL: redisUrl, ...env });
    const b = await TestApp.start({ DATABASE_URL: database, REDIS_URL: redisUrl, ...env });
    return [a, b];
  }

  it('a write through one instance shows in the other’s cached public reads within a second', async () => {
    const [a, b] = await twoInstances();
    try {
      const f = await createPublisherWithNode(a, { description: 'before' });
      const description = async () => ((await b.http.get(`/nodes?search=${f.nodeId}`).expect(200)).body.nodes[0]?.description as string | undefined);
      expect(await description()).toBe('before'); // b caches it
      await a.http.put(`/publishers/${f.publisherId}/nodes/${f.nodeId}`).set(f.owner.auth).send({ description: 'after' }).expect(200);
      const writtenAt = Date.now();
      await expectSeenWithin(writtenAt, 1000, async () => (await description()) === 'after', 'b to show the write');
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a token revoked through one instance is refused by another within a second, though that one had it cached', async () => {
    const [a, b] = await twoInstances();
    try {
      const user = await a.createUser();
      const { body: extra } = await a.http.post('/users/me/tokens').set(user.auth).send({ name: 'laptop' }).expect(201);
      const laptop = { Authorization: `Bearer ${extra.token as string}` };
      await b.http.get('/users/me').set(laptop).expect(200); // b caches it
      await a.http.delete(`/users/me/tokens/${extra.id as string}`).set(user.auth).expect(204);
      const revokedAt = Date.now();
      await expectSeenWithin(revokedAt, 1000, async () => (await b.http.get('/users/me').set(laptop)).status === 401, 'b to refuse the revoked token');
      await a.http.get('/users/me').set(laptop).expect(401);
      await b.http.get('/users/me').set(user.auth).expect(200);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('Redis hanging with its connections open: within a second an instance stops serving what it cached, and says Redis is not connected', async () => {
    const relay = await TcpRelay.start(redisUrl);
    const a = await TestApp.start({ DATABASE_URL: database, REDIS_URL: redisUrl });
    const b = await TestApp.start({ DATABASE_URL: database, REDIS_URL: relay.url });
    try {
      const f = await createPublisherWithNode(a, { description: 'before' });
      // A catalog page: cached for CACHE_MAX_AGE_S (a single node's reply lives only a second).
      const description = async () => ((await b.http.get(`/nodes?search=${f.nodeId}`).expect(200)).body.nodes[0]?.description as string | undefined);
      expect(await description()).toBe('before'); // b caches it
      relay.hang();
      const hungAt = Date.now();
      await a.http.put(`/publishers/${f.publisherId}/nodes/${f.nodeId}`).set(f.owner.auth).send({ description: 'after' }).expect(200);
      const writtenAt = Date.now();
      // The message of the write never reaches b: b must stop trusting its cache by itself.
      await expectSeenWithin(writtenAt, 1000, async () => (await description()) === 'after', 'b to show the write');
      const connected = async () => (await b.http.get('/health/ready').expect(200)).body.details.redis.connected as boolean;
      await expectSeenWithin(hungAt, 1000, async () => !(await connected()), 'b to say Redis is not connected');
      await relay.up();
      await waitFor(async () => (await b.http.get('/health/ready')).body.details.redis.connected === true, 10000, 'b to reconnect');
    } finally {
      await a.close();
      await b.close();
      await relay.down();
    }
  });

  it('one client has one rate-limit window across instances', async () => {
    const [a, b] = await twoInstances({ THROTTLE_LIMIT: '3', THROTTLE_TTL_S: '60' });
    try {
      const statuses = [];
      for (const app of [a, b, a, b]) statuses.push((await app.http.get('/nodes')).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('Redis going away: requests are served, rate limits fail open, auth reads the database, readiness says so; one warning a minute', async () => {
    const relay = await TcpRelay.start(redisUrl);
    const warn = jest.spyOn(Logger.prototype, 'warn');
    const t = await TestApp.start({ DATABASE_URL: database, REDIS_URL: relay.url, THROTTLE_LIMIT: '2', THROTTLE_TTL_S: '60' });
    try {
      const user = await t.createUser();
      const ready = await t.http.get('/health/ready').expect(200);
      expect(ready.body.details.redis).toEqual({ status: 'up', connected: true });
      await t.http.get('/users/me').set(user.auth).expect(200); // cached

      await relay.down();
      await waitFor(() => !t.app.get(SharedRedis).available, 5000, 'the app to notice');
      const during = await t.http.get('/health/ready').expect(200);
      expect(during.body).toMatchObject({ status: 'ok', details: { database: { status: 'up' }, redis: { status: 'up', connected: false } } });
      // Fails open: well past the limit of 2, everything is served.
      for (let i = 0; i < 5; i++) await t.http.get('/users/me').set(user.auth).expect(200);
      // The cache is not trusted while invalidations cannot arrive: a token revoked behind this
      // instance's back (another instance whose message is lost) is refused at once.
      await t.dataSource.manager.update(AccessTokenEntity, { userId: user.id }, { revokedAt: new Date() });
      await t.http.get('/users/me').set(user.auth).expect(401);
      const redisWarnings = warn.mock.calls.filter(([, message]) => String(message).startsWith('Redis unavailable'));
      expect(redisWarnings[0]?.[1]).toMatch(/rate limits|auth/);
      expect(redisWarnings).toHaveLength(1);

      await relay.up();
      await waitFor(() => t.app.get(SharedRedis).available, 10000, 'the app to reconnect');
      expect((await t.http.get('/health/ready').expect(200)).body.details.redis).toEqual({ status: 'up', connected: true });
    } finally {
      warn.mockRestore();
      await t.close();
      await relay.down();
    }
  });
});
