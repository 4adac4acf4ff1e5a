import { Logger } from '@nestjs/common';
import { createServer, IncomingMessage } from 'node:http';
import { AddressInfo, Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { CreditReservationEntity } from '../src/users/entities/credit-reservation.entity';
import { IdempotencyKeyEntity } from '../src/video-proxy/entities/idempotency-key.entity';
import { VideoTaskEntity } from '../src/video-proxy/entities/video-task.entity';
import { FakeUpstream } from './support/fake-upstream';
import { expectNoNulls } from './support/no-nulls';
import { waitFor } from './support/server-process';
import { TestApp, TestUser } from './support/test-app';
import { videoAppForSuite } from './support/video-app';

const ROUTE = '/proxy/video/reference2video';

describe('POST /proxy/video/reference2video', () => {
  let upstream: FakeUpstream;
  let t: TestApp;
  videoAppForSuite({ VIDEO_UPSTREAM_TIMEOUT_MS: '1000' }, (video) => ({ upstream, testApp: t } = video));
  beforeEach(() => upstream.reset());

  const balanceOf = async (user: TestUser) => (await t.http.get('/users/me').set(user.auth).expect(200)).body.credits as number;
  const ledgerOf = async (user: TestUser) =>
    (await t.http.get('/users/me/ledger?limit=100').set(user.auth).expect(200)).body.entries as {
      kind: string;
      amount: number;
      balance_after: number;
      task_id?: string;
    }[];
  const create = (user: TestUser, body: object, headers: Record<string, string> = {}) =>
    t.http.post(ROUTE).set(user.auth).set(headers).send(body);

  it('forwards exactly the validated body with the Token header, charges the upstream’s credits and stores the task', async () => {
    const user = await t.createUser({ credits: 100 });
    upstream.credits = 12;
    const body = { prompt: 'a red fox in snow', duration: 4, images: ['https://example.com/fox.png'], seed: 7, style: 'anime', meta_data: '{"order":1}' };
    const res = await create(user, body).expect(200);

    expect(upstream.requests).toHaveLength(1);
    const [sent] = upstream.requests;
    expect(sent).toMatchObject({ method: 'POST', path: '/ent/v2/reference2video' });
    expect(sent.headers.authorization).toBe(`Token ${upstream.apiKey}`);
    expect(sent.body).toEqual({ ...body, model: 'videoq2-turbo' });

    expect(res.body).toMatchObject({ task_id: expect.stringMatching(/^fake-task-/), state: 'created', credits: 12, prompt: body.prompt, model: 'videoq2-turbo', seed: 7 });
    expectNoNulls(res.body);
    expect(await balanceOf(user)).toBe(88);
    // estimate for videoq2-turbo × 4 s = 20 reserved, settled back to 12
    expect((await ledgerOf(user)).map((e) => [e.kind, e.amount, e.balance_after, e.task_id])).toEqual([
      ['settle', 8, 88, res.body.task_id],
      // Recorded before the task existed, and named its task once it did.
      ['reserve', -20, 80, res.body.task_id],
      ['grant', 100, 100, undefined],
    ]);
    expectNoNulls(await ledgerOf(user));
    const task = await t.dataSource.getRepository(VideoTaskEntity).findOneByOrFail({ taskId: res.body.task_id });
    expect(task).toMatchObject({ userId: user.id, state: 'created', credits: 12, model: 'videoq2-turbo' });
    expect(task.request).toEqual({ ...body, model: 'videoq2-turbo' });
  });

  it('reads credits sent as a numeric string', async () => {
    const user = await t.createUser({ credits: 100 });
    upstream.credits = '25';
    const res = await create(user, { duration: 2 }).expect(200);
    expect(res.body.credits).toBe(25);
    expect(await balanceOf(user)).toBe(75);
  });

  it('requires a bearer token', async () => {
    await t.http.post(ROUTE).send({}).expect(401);
    expect(upstream.requests).toHaveLength(0);
  });

  it.each([
    [{ model: 'videoq9' }, 'model must be one of the following values'],
    [{ model: 'videoq2-pro', duration: 9 }, 'duration must be from 1 to 8 seconds for model videoq2-pro'],
    [{ model: 'videoq2-pro-fast', duration: 11 }, 'duration must be from 1 to 10 seconds for model videoq2-pro-fast'],
    [{ duration: 9 }, 'duration must be from 1 to 8 seconds for model videoq2-turbo'],
    [{ model: 'videoq3-pro', duration: 17 }, 'duration must not be greater than 16'],
    [{ duration: 0 }, 'duration must not be less than 1'],
    [{ duration: 2.5 }, 'duration must be an integer number'],
    [{ prompt: 'x'.repeat(2001) }, 'prompt must be at most 2000 characters'],
    [{ prompt: '😀'.repeat(2001) }, 'prompt must be at most 2000 characters'],
    [{ wm_position: 5 }, 'wm_position must not be greater than 4'],
    [{ meta_data: '{not json' }, 'meta_data must be a string holding valid JSON'],
    [{ meta_data: { a: 1 } }, 'meta_data must be a string'],
    [{ callback_url: 'ftp://example.com/hook' }, 'callback_url must be an absolute http(s) URL'],
    [{ wm_url: 'example.com/wm.png' }, 'wm_url must be an absolute http(s) URL'],
    [{ images: Array.from({ length: 8 }, (_, i) => `https://example.com/${i}.png`) }, 'images must contain no more than 7 elements'],
    [{ images: ['data:image/gif;base64,R0lGODlhAQABAAAAACw='] }, 'each value in images must be an http(s) URL or a base64 data URI'],
    [{ audio_type: 'music' }, 'audio_type must be one of the following values'],
    [{ movement_amplitude: 'huge' }, 'movement_amplitude must be one of the following values'],
    [{ style: 'noir' }, 'style must be one of the following values'],
    [{ resolution: '4K' }, 'resolution must be one of the following values'],
    [{ seed: 2 ** 31 }, 'seed must not be greater than 2147483647'],
    [{ audio: 'yes' }, 'audio must be a boolean value'],
    [{ colour: 'red' }, 'property colour should not exist'],
    [{ duration: null }, 'duration cannot be null'],
    [{ prompt: null }, 'prompt cannot be null'],
    [{ wm_position: 0 }, 'wm_position must not be less than 1'],
    [{ model: 'video2.0', duration: 17 }, 'duration must not be greater than 16'],
    [{ images: ['data:image/png;base64,'] }, 'each value in images must be an http(s) URL or a base64 data URI'],
  ])('rejects %j with 400 before the upstream or the balance is touched', async (body, message) => {
    const user = await t.createUser({ credits: 100 });
    const res = await create(user, body).expect(400);
    expect(res.body.message).toContain(message);
    expect(upstream.requests).toHaveLength(0);
    expect(await balanceOf(user)).toBe(100);
  });

  it('accepts the longest durations per model and both image forms', async () => {
    const user = await t.createUser({ credits: 1000 });
    await create(user, { model: 'videoq3-pro', duration: 16 }).expect(200);
    await create(user, { model: 'videoq2-pro', duration: 8 }).expect(200);
    await create(user, { model: 'videoq1', duration: 16, images: ['https://example.com/a.jpg', 'data:image/jpeg;base64,/9j/4AAQ'] }).expect(200);
    expect(upstream.requests).toHaveLength(3);
  });

  it('drops echo fields of the wrong type (null included) instead of passing them on', async () => {
    const user = await t.createUser({ credits: 100 });
    upstream.respondNext({
      body: { task_id: 'typed-1', state: 'created', credits: 10, seed: '7', duration: [2], model: { x: 1 }, prompt: 'ok', style: 'noir', aspect_ratio: null, images: null },
    });
    const res = await create(user, { duration: 2 }).expect(200);
    expect(res.body).toEqual({ task_id: 'typed-1', state: 'created', credits: 10, prompt: 'ok' });
    const stored = await t.http.get('/proxy/video/tasks/typed-1').set(user.auth).expect(200);
    expectNoNulls(stored.body);
  });

  it('stores long upstream task ids, and never lets a reused id overwrite another user’s task', async () => {
    const [ann, bob] = [await t.createUser({ credits: 100 }), await t.createUser({ credits: 100 })];
    const longId = `t-${'x'.repeat(120)}`;
    upstream.respondNext({ body: { task_id: longId, state: 'created', credits: 10 } });
    await create(ann, { duration: 2 }).expect(200);
    upstream.respondNext({ body: { task_id: longId, state: 'created', credits: 10 } });
    const clash = await create(bob, { duration: 2 }).expect(502);
    expect(clash.body.message).toContain('nothing was charged');
    expect(await balanceOf(bob)).toBe(100);
    expect((await t.dataSource.getRepository(VideoTaskEntity).findOneByOrFail({ taskId: longId })).userId).toBe(ann.id);
    expect((await ledgerOf(ann))[0]).toMatchObject({ kind: 'reserve', amount: -10 });
  });

  it('never echoes the proxy’s key inside an upstream message', async () => {
    const user = await t.createUser({ credits: 100 });
    upstream.respondNext({ status: 400, body: { message: `header was Token ${upstream.apiKey}` } });
    const res = await create(user, { duration: 2 }).expect(400);
    expect(res.body.message).toBe('the video model rejected the request: header was Token [redacted]');
  });

  it('answers 402 when the balance cannot cover the estimate, without calling the upstream', async () => {
    const user = await t.createUser({ credits: 9 });
    const res = await create(user, { duration: 2 }).expect(402);
    expect(res.body).toMatchObject({ statusCode: 402, error: 'Payment Required' });
    expect(res.body.message).toContain('needs 10, the balance is 9');
    expect(upstream.requests).toHaveLength(0);
    expect(await balanceOf(user)).toBe(9);
  });

  it('adds 10 credits for is_rec and discounts off_peak in the reservation', async () => {
    const user = await t.createUser({ credits: 100 });
    upstream.respondNext({ status: 500, body: {} }, { status: 500, body: {} });
    await create(user, { duration: 2, is_rec: true }).expect(502);
    await create(user, { duration: 2, off_peak: true }).expect(502);
    const reservations = (await ledgerOf(user)).filter((e) => e.kind === 'reserve').map((e) => e.amount);
    expect(reservations).toEqual([-5, -20]);
  });

  it.each([
    [{ status: 400, body: { code: 'InvalidPrompt', reason: 'InvalidPrompt', message: 'prompt violates policy' } }, 400, 'the video model rejected the request: prompt violates policy'],
    [{ status: 422, body: { message: 'image unreadable' } }, 400, 'image unreadable'],
    [{ status: 401, body: { message: `bad key ${'fake-upstream-secret-key'}` } }, 502, 'refused this proxy’s credentials'],
    [{ status: 403, body: {} }, 502, 'refused this proxy’s credentials'],
    [{ status: 402, body: { message: 'no credits' } }, 503, 'out of credits'],
    [{ status: 400, body: { code: 'CreditInsufficient', message: 'insufficient' } }, 503, 'out of credits'],
    [{ status: 500, body: { message: 'internal' } }, 502, 'the video service failed (HTTP 500)'],
    [{ status: 503, body: 'Service Unavailable' }, 502, 'the video service failed (HTTP 503)'],
    [{ status: 200, body: 'not json at all' }, 502, 'not a task'],
    [{ status: 200, body: { state: 'created', credits: 5 } }, 502, 'not a task'],
    [{ status: 200, body: { task_id: 't', state: 'created', credits: 'lots' } }, 502, 'not a task'],
    [{ status: 200, body: { task_id: 't', state: 'created', credits: 5 }, delayMs: 1500 }, 504, 'did not answer within 1000 ms'],
    [{ status: 200, body: { task_id: 't', state: 'created', credits: 5 }, stallBodyMs: 1500 }, 504, 'did not answer within 1000 ms'],
  ])('maps upstream %j to %i, charging nothing', async (scripted, status, message) => {
    const user = await t.createUser({ credits: 100 });
    upstream.respondNext(scripted);
    const res = await create(user, { duration: 2 }).expect(status);
    expect(res.body).toEqual({ statusCode: status, error: expect.any(String), message: expect.stringContaining(message), requestId: expect.any(String) });
    expect(JSON.stringify(res.body)).not.toContain(upstream.apiKey);
    expect(await balanceOf(user)).toBe(100);
    expect((await ledgerOf(user)).map((e) => [e.kind, e.amount, e.task_id])).toEqual([['release', 10, undefined], ['reserve', -10, undefined], ['grant', 100, undefined]]);
    expect(await t.dataSource.getRepository(VideoTaskEntity).countBy({ userId: user.id })).toBe(0);
  });

  it('answers 502 when the upstream drops the connection, charges nothing, and logs the cause without the key', async () => {
    const warnings = jest.spyOn(Logger.prototype, 'warn');
    try {
      const user = await t.createUser({ credits: 100 });
      upstream.respondNext({ dropConnection: true });
      const res = await create(user, { duration: 2 }).expect(502);
      expect(res.body.message).toBe('the video service could not be reached');
      expect(await balanceOf(user)).toBe(100);
      const logged = warnings.mock.calls.map((call) => String(call[0])).filter((text) => text.includes('could not be reached'));
      expect(logged).toEqual([expect.stringContaining('ECONNRESET')]);
      expect(logged.join()).not.toContain(upstream.apiKey);
    } finally {
      warnings.mockRestore();
    }
  });

  it('reuses one upstream connection, closes it when idle, and leaves its socket options alone (setsockopt only when they change)', async () => {
    const setKeepAlive = jest.spyOn(Socket.prototype, 'setKeepAlive');
    try {
      const user = await t.createUser({ credits: 100 });
      for (let i = 0; i < 3; i += 1) {
        await create(user, { duration: 2 }).expect(200);
      }
      const port = Number(new URL(upstream.url).port);
      const sockets = setKeepAlive.mock.contexts as Socket[];
      const toUpstream = setKeepAlive.mock.calls.filter((_call, i) => sockets[i].remotePort === port).map(([, delay]) => delay);
      const pooled = new Set(sockets.filter((socket) => socket.remotePort === port));
      expect(pooled.size).toBe(1);
      // Idle in the pool, it has a timeout (0 if the agent's hidden 5 s were lost), shortened by Node to a
      // second under the upstream's `Keep-Alive: timeout=5`, so it closes before the upstream would.
      expect([...pooled][0].timeout).toBe(4000);
      // axios asks for a 60 s probe delay on every request; an agent with another delay would flip it back each time.
      expect(toUpstream.length).toBeGreaterThanOrEqual(3);
      expect(new Set(toUpstream)).toEqual(new Set([60_000]));
    } finally {
      setKeepAlive.mockRestore();
    }
  });

  it('maps upstream 429 to 429 with Retry-After', async () => {
    const user = await t.createUser({ credits: 100 });
    upstream.respondNext({ status: 429, body: { message: 'slow down' }, headers: { 'Retry-After': '7' } });
    const res = await create(user, { duration: 2 }).expect(429);
    expect(res.headers['retry-after']).toBe('7');
    expect(res.body.statusCode).toBe(429);
    expect(await balanceOf(user)).toBe(100);
  });

  it('does not follow an upstream redirect (the key would go elsewhere, the POST become a GET): 502, nothing charged', async () => {
    const user = await t.createUser({ credits: 100 });
    upstream.respondNext({ status: 307, body: {}, headers: { Location: `${upstream.url}/ent/v2/reference2video` } });
    const res = await create(user, { duration: 2 }).expect(502);
    expect(res.body.message).toBe('the video service failed (HTTP 307)');
    expect(upstream.requests).toHaveLength(1);
    expect(await balanceOf(user)).toBe(100);
  });

  it('never overdraws: a balance for K tasks and 3K concurrent requests give exactly K successes, the rest 402', async () => {
    const K = 5;
    const user = await t.createUser({ credits: K * 10 });
    const replies = await Promise.all(Array.from({ length: 3 * K }, () => create(user, { duration: 2 })));
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(K);
    expect(statuses.filter((s) => s === 402)).toHaveLength(2 * K);
    expect(upstream.requests).toHaveLength(K);
    expect(await balanceOf(user)).toBe(0);
    const ledger = await ledgerOf(user);
    expect(ledger[0].balance_after).toBe(0);
    expect(ledger.every((e) => e.balance_after >= 0)).toBe(true);
    // Newest first, each entry moves the balance the one before it left.
    expect(ledger.slice(0, -1).map((e) => e.balance_after - e.amount)).toEqual(ledger.slice(1).map((e) => e.balance_after));
    expect(ledger.map((e) => e.kind)).toEqual([...Array<string>(K).fill('reserve'), 'grant']);
  });

  describe('Idempotency-Key', () => {
    it('replays the first reply for the same key and body: one upstream call, one charge', async () => {
      const user = await t.createUser({ credits: 100 });
      const key = { 'Idempotency-Key': 'order-17' };
      const first = await create(user, { prompt: 'cat', duration: 2 }, key).expect(200);
      const again = await create(user, { duration: 2, prompt: 'cat' }, key).expect(200);
      expect(again.body).toEqual(first.body);
      expect(upstream.requests).toHaveLength(1);
      expect(await balanceOf(user)).toBe(90);
      // keys are per user
      const other = await t.createUser({ credits: 100 });
      const theirs = await create(other, { prompt: 'cat', duration: 2 }, key).expect(200);
      expect(theirs.body.task_id).not.toBe(first.body.task_id);
    });

    it('rejects the same key with another body (422) and while the first is in flight (409)', async () => {
      const user = await t.createUser({ credits: 100 });
      await create(user, { prompt: 'cat', duration: 2 }, { 'Idempotency-Key': 'k1' }).expect(200);
      const changed = await create(user, { prompt: 'dog', duration: 2 }, { 'Idempotency-Key': 'k1' }).expect(422);
      expect(changed.body.message).toContain('different request body');

      upstream.respondNext({ status: 200, body: { task_id: 'slow-task', state: 'created', credits: 10 }, delayMs: 400 });
      const slow = create(user, { prompt: 'slow', duration: 2 }, { 'Idempotency-Key': 'k2' }).then((r) => r);
      // The key is claimed before the upstream is called: once the upstream has the create, it is in flight.
      await waitFor(() => upstream.requests.length === 2, 5_000, 'the first create to reach the upstream');
      const inFlight = await create(user, { prompt: 'slow', duration: 2 }, { 'Idempotency-Key': 'k2' }).expect(409);
      expect(inFlight.body.message).toContain('still in progress');
      expect((await slow).status).toBe(200);
      expect(upstream.requests).toHaveLength(2);
      expect(await balanceOf(user)).toBe(80);
    });

    it('frees the key when the request fails, so a retry goes through', async () => {
      const user = await t.createUser({ credits: 100 });
      upstream.respondNext({ status: 500, body: {} });
      await create(user, { duration: 2 }, { 'Idempotency-Key': 'retry-me' }).expect(502);
      await create(user, { duration: 2 }, { 'Idempotency-Key': 'retry-me' }).expect(200);
      expect(upstream.requests).toHaveLength(2);
      expect(await balanceOf(user)).toBe(90);
    });

    it('a 402 leaves the key unclaimed and nothing reserved: a retry once credits are granted goes through', async () => {
      const user = await t.createUser({ credits: 5 });
      const admin = await t.createUser({ admin: true });
      await create(user, { duration: 2 }, { 'Idempotency-Key': 'short' }).expect(402);
      expect(await t.dataSource.manager.countBy(IdempotencyKeyEntity, { userId: user.id })).toBe(0);
      expect(await t.dataSource.manager.countBy(CreditReservationEntity, { userId: user.id })).toBe(0);
      await t.http.post(`/admin/users/${user.id}/credits`).set(admin.auth).send({ amount: 100 }).expect(200);
      await create(user, { duration: 2 }, { 'Idempotency-Key': 'short' }).expect(200);
      expect(upstream.requests).toHaveLength(1);
      expect(await balanceOf(user)).toBe(95);
    });

    it('replays the upstream’s refusal of the request: no second upstream call, no charge', async () => {
      const user = await t.createUser({ credits: 100 });
      upstream.respondNext({ status: 422, body: { message: 'image too small' } });
      const first = await create(user, { duration: 2 }, { 'Idempotency-Key': 'refused' }).expect(400);
      expect(first.body.message).toContain('image too small');
      const again = await create(user, { duration: 2 }, { 'Idempotency-Key': 'refused' }).expect(400);
      expect({ ...again.body, requestId: undefined }).toEqual({ ...first.body, requestId: undefined });
      expect(upstream.requests).toHaveLength(1);
      expect(await balanceOf(user)).toBe(100);
    });

    it('rejects malformed keys', async () => {
      const user = await t.createUser({ credits: 100 });
      await create(user, { duration: 2 }, { 'Idempotency-Key': 'has space' }).expect(400);
      expect(upstream.requests).toHaveLength(0);
    });
  });

  it('reports the remote upstream in /health', async () => {
    const res = await t.http.get('/health').expect(200);
    expect(res.body.info.upstream).toEqual({ status: 'up', mode: 'remote' });
  });
});

describe('Upstream replies that break off or overflow', () => {
  let upstream: FakeUpstream;
  let t: TestApp;
  // A deadline that a 64 MiB reply cannot hit on a busy machine, so it fails by its size alone.
  videoAppForSuite({ VIDEO_UPSTREAM_TIMEOUT_MS: '30000' }, (video) => ({ upstream, testApp: t } = video));

  const task = { task_id: 'broken-off', state: 'created', credits: 5 };

  it('reads a gzip-compressed reply (so the compressed cut-off below is one)', async () => {
    const user = await t.createUser({ credits: 100 });
    upstream.respondNext({ body: task, gzip: true });
    const res = await t.http.post(ROUTE).set(user.auth).send({ duration: 2 }).expect(200);
    expect(res.body).toMatchObject(task);
  });

  it.each([
    ['cut off part-way', { body: task, cutBody: true }, 'cut its reply off'],
    ['cut off part-way, gzip-compressed', { body: task, cutBody: true, gzip: true }, 'cut its reply off'],
    ['over 64 MiB', { fillerBytes: 64 * 1024 * 1024 + 1 }, 'sent a reply that is too large'],
  ])('a reply %s is a 502 that charges nothing, logged with its cause and without the key', async (_, scripted, failure) => {
    const warnings = jest.spyOn(Logger.prototype, 'warn');
    try {
      const user = await t.createUser({ credits: 100 });
      upstream.respondNext(scripted);
      const res = await t.http.post(ROUTE).set(user.auth).send({ duration: 2 }).expect(502);
      expect(res.body.message).toBe(`the video service ${failure}`);
      expect((await t.http.get('/users/me').set(user.auth).expect(200)).body.credits).toBe(100);
      expect(await t.dataSource.getRepository(VideoTaskEntity).countBy({ userId: user.id })).toBe(0);
      const logged = warnings.mock.calls.map((call) => String(call[0])).filter((text) => text.includes(failure));
      expect(logged).toHaveLength(1);
      expect(logged.join()).not.toContain(upstream.apiKey);
    } finally {
      warnings.mockRestore();
    }
  });
});

describe('Large bodies on the video route', () => {
  let upstream: FakeUpstream;
  let t: TestApp;
  // An upstream deadline long enough to move megabytes each way on a busy machine (the suite above has 1 s, for its timeouts).
  videoAppForSuite({ VIDEO_UPSTREAM_TIMEOUT_MS: '30000' }, (video) => ({ upstream, testApp: t } = video));
  beforeEach(() => upstream.reset());

  const create = (user: TestUser, body: object, path = ROUTE) => t.http.post(path).set(user.auth).send(body);

  it('accepts seven 5 MB images (a 35 MB body), however the path is spelled', async () => {
    const user = await t.createUser({ credits: 100 });
    const image = `data:image/png;base64,${Buffer.alloc(3_750_000, 7).toString('base64')}`;
    const images = Array.from({ length: 7 }, () => image);
    const res = await create(user, { duration: 1, images }, `${ROUTE}/`).expect(200);
    expect(res.body.images).toHaveLength(7);
    expect((upstream.requests[0].body as { images: string[] }).images[6]).toHaveLength(image.length);
    await create(user, { duration: 1, images: images.slice(0, 1) }, ROUTE.toUpperCase()).expect(200);
  });

  it('accepts a payload of exactly 1048576 code points and rejects one more', async () => {
    const user = await t.createUser({ credits: 100 });
    await create(user, { duration: 1, payload: 'p'.repeat(1_048_577) }).expect(400);
    expect(upstream.requests).toHaveLength(0);
    await create(user, { duration: 1, payload: 'p'.repeat(1_048_576) }).expect(200);
    expect((upstream.requests[0].body as { payload: string }).payload).toHaveLength(1_048_576);
    // counted in code points: a million emoji is 2 MiB of UTF-16 and 4 MiB of UTF-8, and still fits
    await create(user, { duration: 1, payload: '😀'.repeat(1_048_576) }).expect(200);
  });
});

describe('Behind an HTTPS proxy', () => {
  it('a proxy that never answers CONNECT is the upstream deadline’s 504 (not a 502 at the agent’s 5 s idle timeout); nothing charged', async () => {
    const tunnels: string[] = [];
    const held: Duplex[] = [];
    const proxy = createServer().on('connect', (req: IncomingMessage, socket: Duplex) => {
      tunnels.push(req.url ?? '');
      held.push(socket);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const t = await TestApp.start({
      VIDEO_UPSTREAM_URL: 'https://video.example',
      VIDEO_UPSTREAM_API_KEY: 'proxy-test-key',
      // Over the agent's 5 s idle timeout, which axios' tunnelling agent once took as its deadline.
      VIDEO_UPSTREAM_TIMEOUT_MS: '6000',
      // axios reads the lower-case names first, and an empty no_proxy falls through to NO_PROXY.
      https_proxy: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
      no_proxy: '',
      NO_PROXY: '',
    });
    try {
      const user = await t.createUser({ credits: 100 });
      const res = await t.http.post(ROUTE).set(user.auth).send({ duration: 2 }).expect(504);
      expect(res.body.message).toBe('the video service did not answer within 6000 ms');
      expect(tunnels).toEqual(['video.example:443']);
      expect((await t.http.get('/users/me').set(user.auth).expect(200)).body.credits).toBe(100);
    } finally {
      await t.close();
      held.forEach((socket) => socket.destroy());
      await new Promise((resolve) => proxy.close(resolve));
    }
  });
});

describe('Video proxy without an upstream (built-in sandbox)', () => {
  it('creates tasks through the sandbox over HTTP and says so in /health', async () => {
    const t = await TestApp.start({ VIDEO_UPSTREAM_URL: '', VIDEO_UPSTREAM_API_KEY: '' });
    try {
      const user = await t.createUser({ credits: 100 });
      const res = await t.http.post(ROUTE).set(user.auth).send({ prompt: 'a lighthouse', model: 'videoq2-turbo', duration: 2 }).expect(200);
      expect(res.body).toMatchObject({ task_id: expect.stringMatching(/^sandbox-/), state: 'created', credits: 10, prompt: 'a lighthouse' });
      expect((await t.http.get('/users/me').set(user.auth)).body.credits).toBe(90);
      expect((await t.http.get('/health').expect(200)).body.info.upstream).toEqual({ status: 'up', mode: 'sandbox' });
    } finally {
      await t.close();
    }
  });
});

describe('Rate limiting', () => {
  it('answers 429 with Retry-After in the error shape once a window is used up; health is exempt', async () => {
    const t = await TestApp.start({ THROTTLE_LIMIT: '3', THROTTLE_TTL_S: '60' });
    try {
      const user = await t.createUser();
      for (let i = 0; i < 3; i++) await t.http.get('/users/me').set(user.auth).expect(200);
      const limited = await t.http.get('/users/me').set(user.auth).expect(429);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect(limited.body).toMatchObject({ statusCode: 429, error: 'Too Many Requests' });
      expect(limited.body.message).toContain('at most 3 per 60 s');
      await t.http.get('/nodes').expect(429);
      await t.http.get('/health').expect(200);
    } finally {
      await t.close();
    }
  });
});
