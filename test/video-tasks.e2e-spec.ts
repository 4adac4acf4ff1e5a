import { createHmac, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CallbackDeliveryEntity } from '../src/video-proxy/entities/callback-delivery.entity';
import { EarlyUpstreamStatusEntity } from '../src/video-proxy/entities/early-upstream-status.entity';
import { VideoTaskEntity } from '../src/video-proxy/entities/video-task.entity';
import { signHeaders } from '../src/video-proxy/callbacks/upstream-signature';
import { ReservationRecovery } from '../src/video-proxy/reservation-recovery';
import { CallbackReceiver } from './support/callback-receiver';
import { holdCommits } from './support/commit-gate';
import { injectWriteFault } from './support/fault-injection';
import { FakeUpstream } from './support/fake-upstream';
import { expectNoNulls } from './support/no-nulls';
import { waitFor } from './support/server-process';
import { TestApp, TestUser } from './support/test-app';
import {
  CLIENT_CALLBACK_ENV,
  createVideoTask,
  postUpstreamCallback,
  signedAsUpstream,
  UPSTREAM_CALLBACK_PATH,
  upstreamEnv,
  VideoApp,
  videoAppForSuite,
} from './support/video-app';

const APP_ENV = { ...CLIENT_CALLBACK_ENV, VIDEO_UPSTREAM_TIMEOUT_MS: '2000' };

function verifySignature(secret: string, rawBody: string, header: unknown): boolean {
  return header === `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
}

describe('Video task lifecycle', () => {
  let upstream: FakeUpstream;
  let receiver: CallbackReceiver;
  let t: TestApp;
  videoAppForSuite(APP_ENV, (video) => ({ upstream, receiver, testApp: t } = video));
  beforeEach(() => upstream.reset());

  const createTask = (user: TestUser, body: object = {}) => createVideoTask(t, user, body);
  const balanceOf = async (user: TestUser) => (await t.http.get('/users/me').set(user.auth)).body.credits as number;

  it('hands the upstream this service’s callback endpoint, never the client’s', async () => {
    const user = await t.createUser({ credits: 100 });
    await createTask(user, { callback_url: 'https://client.example.com/hook' });
    expect((upstream.requests[0].body as { callback_url: string }).callback_url).toBe(`https://registry.example.com${UPSTREAM_CALLBACK_PATH}`);
  });

  it('polling refreshes a running task from the upstream until it succeeds, then stops asking', async () => {
    const user = await t.createUser({ credits: 100 });
    const taskId = await createTask(user);
    upstream.taskStatus.set(taskId, { state: 'processing' });
    const running = await t.http.get(`/proxy/video/tasks/${taskId}`).set(user.auth).expect(200);
    expect(running.body.state).toBe('processing');
    expect(['creations', 'err_code'].filter((key) => key in running.body)).toEqual([]);
    expectNoNulls(running.body);

    const creations = [{ id: 'c1', url: 'https://cdn.example.com/v.mp4', cover_url: 'https://cdn.example.com/v.jpg' }];
    upstream.taskStatus.set(taskId, { state: 'success', creations, credits: 10 });
    const done = await t.http.get(`/proxy/video/tasks/${taskId}`).set(user.auth).expect(200);
    expect(done.body).toMatchObject({ task_id: taskId, state: 'success', credits: 10, creations });
    expect(done.body).not.toHaveProperty('err_code');
    expectNoNulls(done.body);

    const queries = upstream.requests.filter((r) => r.method === 'GET').length;
    await t.http.get(`/proxy/video/tasks/${taskId}`).set(user.auth).expect(200);
    expect(upstream.requests.filter((r) => r.method === 'GET')).toHaveLength(queries);
  });

  it('keeps the stored state when the upstream cannot be asked', async () => {
    const user = await t.createUser({ credits: 100 });
    const taskId = await createTask(user);
    const res = await t.http.get(`/proxy/video/tasks/${taskId}`).set(user.auth).expect(200);
    expect(res.body.state).toBe('created');
  });

  it('shows a task only to its owner and admins', async () => {
    const [owner, other, admin] = [await t.createUser({ credits: 100 }), await t.createUser(), await t.createUser({ admin: true })];
    const taskId = await createTask(owner);
    upstream.taskStatus.set(taskId, { state: 'queueing' });
    await t.http.get(`/proxy/video/tasks/${taskId}`).set(other.auth).expect(404);
    await t.http.get(`/proxy/video/tasks/${taskId}`).set(admin.auth).expect(200);
    await t.http.get('/proxy/video/tasks/no-such-task').set(owner.auth).expect(404);
    await t.http.get(`/proxy/video/tasks/${taskId}`).expect(401);
  });

  it('lists the caller’s tasks newest first, paginated', async () => {
    const user = await t.createUser({ credits: 100 });
    const ids = [];
    for (let i = 0; i < 3; i++) {
      ids.push(await createTask(user));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const page = await t.http.get('/proxy/video/tasks?limit=2').set(user.auth).expect(200);
    expect(page.body).toMatchObject({ total: 3, page: 1, limit: 2, totalPages: 2 });
    expect(page.body.tasks.map((task: { task_id: string }) => task.task_id)).toEqual([ids[2], ids[1]]);
    expectNoNulls(page.body);
    const other = await t.createUser();
    expect((await t.http.get('/proxy/video/tasks').set(other.auth).expect(200)).body.total).toBe(0);
  });

  describe('upstream callbacks', () => {
    it.each([
      ['unsigned', () => ({})],
      ['signed with another key', (h: Record<string, string>) => signedAsUpstream('wrong-key', { nonce: h['x-request-nonce'] })],
      ['tampered (nonce swapped)', (h: Record<string, string>) => ({ ...h, 'x-request-nonce': 'other' })],
      ['stale', (h: Record<string, string>) => signedAsUpstream(upstream.apiKey, { nonce: h['x-request-nonce'], date: new Date(Date.now() - 10 * 60 * 1000) })],
    ])('refuses a callback that is %s with 401 and changes nothing', async (_case, tamper) => {
      const user = await t.createUser({ credits: 100 });
      const taskId = await createTask(user, { callback_url: receiver.url });
      const signed = tamper(signedAsUpstream(upstream.apiKey));
      const res = await postUpstreamCallback(t, upstream.apiKey, { id: taskId, state: 'failed', err_code: 'X' }, signed).expect(401);
      expect(res.body.message).toContain('upstream callback refused');
      upstream.taskStatus.set(taskId, { state: 'created' });
      expect((await t.http.get(`/proxy/video/tasks/${taskId}`).set(user.auth)).body.state).toBe('created');
      expect(await balanceOf(user)).toBe(90);
      expect(await t.dataSource.getRepository(CallbackDeliveryEntity).countBy({ taskId })).toBe(0);
    });

    it('refuses a replayed callback', async () => {
      const user = await t.createUser({ credits: 100 });
      const taskId = await createTask(user);
      const headers = signedAsUpstream(upstream.apiKey);
      await t.http.post(UPSTREAM_CALLBACK_PATH).set(headers).send({ id: taskId, state: 'queueing' }).expect(204);
      await t.http.post(UPSTREAM_CALLBACK_PATH).set(headers).send({ id: taskId, state: 'processing' }).expect(401);
      // A body this service refuses keeps its nonce: sent again, it is a replay.
      const refused = signedAsUpstream(upstream.apiKey);
      await t.http.post(UPSTREAM_CALLBACK_PATH).set(refused).send({ state: 'nonsense' }).expect(400);
      await t.http.post(UPSTREAM_CALLBACK_PATH).set(refused).send({ id: taskId, state: 'success' }).expect(401);
    });

    it('a callback that could not be applied may come again under its nonce (the upstream retrying it is no replay)', async () => {
      const user = await t.createUser({ credits: 100 });
      const taskId = await createTask(user);
      const headers = signedAsUpstream(upstream.apiKey);
      const removeFault = await injectWriteFault(t.dataSource, { table: 'video_tasks', event: 'UPDATE', when: `NEW."task_id" = '${taskId}'` });
      try {
        await t.http.post(UPSTREAM_CALLBACK_PATH).set(headers).send({ id: taskId, state: 'processing' }).expect(500);
      } finally {
        await removeFault();
      }
      await t.http.post(UPSTREAM_CALLBACK_PATH).set(headers).send({ id: taskId, state: 'processing' }).expect(204);
      upstream.taskStatus.set(taskId, { state: 'created' });
      expect((await t.http.get(`/proxy/video/tasks/${taskId}`).set(user.auth)).body.state).toBe('processing');
      await t.http.post(UPSTREAM_CALLBACK_PATH).set(headers).send({ id: taskId, state: 'processing' }).expect(401);
    });

    it('takes a callback whose query the upstream signed (sorted by name), and refuses one whose query was changed', async () => {
      const user = await t.createUser({ credits: 100 });
      const taskId = await createTask(user);
      const withQuery = (query: Record<string, string>) =>
        signHeaders(upstream.apiKey, 'AK', { method: 'POST', path: UPSTREAM_CALLBACK_PATH, query }, randomUUID());
      await t.http.post(`${UPSTREAM_CALLBACK_PATH}?b=2&a=1`).set(withQuery({ b: '2', a: '1' })).send({ id: taskId, state: 'queueing' }).expect(204);
      await t.http.post(`${UPSTREAM_CALLBACK_PATH}?b=3&a=1`).set(withQuery({ b: '2', a: '1' })).send({ id: taskId, state: 'processing' }).expect(401);
      expect((await t.dataSource.getRepository(VideoTaskEntity).findOneByOrFail({ taskId })).state).toBe('queueing');
    });

    it('applies a signed callback and delivers a signed client callback the receiver can verify', async () => {
      const user = await t.createUser({ credits: 100 });
      const taskId = await createTask(user, { callback_url: receiver.url, prompt: 'harbour at dawn' });
      const creations = [{ id: 'c9', url: 'https://cdn.example.com/9.mp4', cover_url: 'https://cdn.example.com/9.jpg' }];
      await postUpstreamCallback(t, upstream.apiKey, { id: taskId, state: 'success', credits: 10, creations }).expect(204);

      const delivery = await receiver.waitForTask(taskId);
      const { secret } = (await t.http.get('/users/me/webhook-secret').set(user.auth).expect(200)).body;
      expect(verifySignature(secret, delivery.rawBody, delivery.headers['x-signature'])).toBe(true);
      expect(Math.abs(Number(delivery.headers['x-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
      expect(delivery.body).toMatchObject({ task_id: taskId, state: 'success', prompt: 'harbour at dawn', creations });
      expect((await t.http.get(`/proxy/video/tasks/${taskId}`).set(user.auth)).body.state).toBe('success');
    });

    it('never moves a terminal task: late and repeated callbacks change nothing', async () => {
      const user = await t.createUser({ credits: 100 });
      const taskId = await createTask(user, { callback_url: receiver.url });
      await postUpstreamCallback(t, upstream.apiKey, { id: taskId, state: 'success', creations: [] }).expect(204);
      await postUpstreamCallback(t, upstream.apiKey, { id: taskId, state: 'processing' }).expect(204);
      await postUpstreamCallback(t, upstream.apiKey, { id: taskId, state: 'failed', err_code: 'late' }).expect(204);
      expect((await t.http.get(`/proxy/video/tasks/${taskId}`).set(user.auth)).body.state).toBe('success');
      expect(await t.dataSource.getRepository(CallbackDeliveryEntity).countBy({ taskId })).toBe(1);
      expect(await balanceOf(user)).toBe(90);
    });

    it('refunds a failed task exactly once, even when the failure is reported twice', async () => {
      const user = await t.createUser({ credits: 100 });
      const taskId = await createTask(user);
      expect(await balanceOf(user)).toBe(90);
      await postUpstreamCallback(t, upstream.apiKey, { id: taskId, state: 'failed', err_code: 'ModerationFailed' }).expect(204);
      await postUpstreamCallback(t, upstream.apiKey, { id: taskId, state: 'failed', err_code: 'ModerationFailed' }).expect(204);
      upstream.taskStatus.set(taskId, { state: 'failed', err_code: 'ModerationFailed' });
      const task = await t.http.get(`/proxy/video/tasks/${taskId}`).set(user.auth).expect(200);
      expect(task.body).toMatchObject({ state: 'failed', err_code: 'ModerationFailed' });
      expect(task.body).not.toHaveProperty('creations');
      expectNoNulls(task.body);
      expect(await balanceOf(user)).toBe(100);
      const ledger = (await t.http.get('/users/me/ledger').set(user.auth)).body.entries as { kind: string; amount: number; task_id?: string }[];
      expect(ledger.filter((e) => e.kind === 'refund')).toEqual([expect.objectContaining({ amount: 10, task_id: taskId })]);
    });

    it('refunds once when concurrent reports of the failure race each other', async () => {
      const user = await t.createUser({ credits: 100 });
      const taskId = await createTask(user);
      const replies = await Promise.all(
        Array.from({ length: 8 }, () => postUpstreamCallback(t, upstream.apiKey, { id: taskId, state: 'failed', err_code: 'E' })),
      );
      expect(replies.map((r) => r.status)).toEqual(Array(8).fill(204));
      expect(await balanceOf(user)).toBe(100);
      const ledger = (await t.http.get('/users/me/ledger').set(user.auth)).body.entries as { kind: string }[];
      expect(ledger.filter((e) => e.kind === 'refund')).toHaveLength(1);
    });

    it('refunds a task the upstream reports as failed in its create reply', async () => {
      const user = await t.createUser({ credits: 100 });
      const taskId = `born-failed-${randomUUID()}`;
      upstream.respondNext({ body: { task_id: taskId, state: 'failed', err_code: 'ModerationFailed', credits: 10 } });
      const res = await t.http.post('/proxy/video/reference2video').set(user.auth).send({ duration: 2 }).expect(200);
      expect(res.body).toMatchObject({ state: 'failed', err_code: 'ModerationFailed' });
      expect(await balanceOf(user)).toBe(100);
      // Why it failed is kept, as a failure reported later would be.
      const task = await t.http.get(`/proxy/video/tasks/${taskId}`).set(user.auth).expect(200);
      expect(task.body).toMatchObject({ state: 'failed', err_code: 'ModerationFailed' });
    });

    it('applies a failure the upstream reported before the create was stored, once it is: refunded, and the client told', async () => {
      const user = await t.createUser({ credits: 100 });
      const taskId = `early-${randomUUID()}`;
      // The upstream reports the failure before its create reply has even reached the service.
      upstream.respondNext({ body: { task_id: taskId, state: 'created', credits: 10 }, delayMs: 500 });
      const creating = t.http.post('/proxy/video/reference2video').set(user.auth).send({ duration: 2, callback_url: receiver.url });
      const created = creating.then((res) => res);
      await waitFor(() => upstream.requests.some((req) => req.method === 'POST'), 5_000, 'the create to reach the upstream');
      await postUpstreamCallback(t, upstream.apiKey, { id: taskId, state: 'failed', err_code: 'ModerationFailed' }).expect(204);
      expect((await created).status).toBe(200);
      const stored = await t.dataSource.getRepository(VideoTaskEntity).findOneByOrFail({ taskId });
      expect(stored).toMatchObject({ state: 'failed', errCode: 'ModerationFailed' });
      expect(await balanceOf(user)).toBe(100);
      expect((await receiver.waitForTask(taskId)).body).toMatchObject({ task_id: taskId, state: 'failed' });
      expect(await t.dataSource.getRepository(EarlyUpstreamStatusEntity).countBy({ taskId })).toBe(0);
    });

    (process.env.TEST_DATABASE_URL ? it : it.skip)('applies a kept state when the task was stored while it was being kept (PostgreSQL)', async () => {
      const user = await t.createUser({ credits: 100 });
      const taskId = `kept-late-${randomUUID()}`;
      upstream.respondNext({ body: { task_id: taskId, state: 'created', credits: 10 }, delayMs: 300 });
      const created = t.http.post('/proxy/video/reference2video').set(user.auth).send({ duration: 2 }).then((res) => res);
      await waitFor(() => upstream.requests.some((req) => req.method === 'POST'), 5_000, 'the create to reach the upstream');
      // The callback finds no task and keeps its state, but that commit waits while the create stores the task
      // and finds nothing kept: only the callback's second look can apply it.
      const gate = await holdCommits(t.dataSource, 'early_upstream_statuses', `NEW."task_id" = '${taskId}'`, 'INSERT');
      let callback: Promise<{ status: number }> | undefined;
      try {
        callback = postUpstreamCallback(t, upstream.apiKey, { id: taskId, state: 'failed', err_code: 'E' }).then((res) => res);
        await gate.reached();
        expect((await created).status).toBe(200);
        expect((await t.dataSource.getRepository(VideoTaskEntity).findOneByOrFail({ taskId })).state).toBe('created');
      } finally {
        await gate.release();
      }
      expect((await callback)?.status).toBe(204);
      expect((await t.dataSource.getRepository(VideoTaskEntity).findOneByOrFail({ taskId })).state).toBe('failed');
      expect(await balanceOf(user)).toBe(100);
    });

    it('keeps a state reported for a task it has not stored for an hour, then the recovery sweep forgets it', async () => {
      const kept = t.dataSource.getRepository(EarlyUpstreamStatusEntity);
      const [never, later] = [`never-${randomUUID()}`, `later-${randomUUID()}`];
      await postUpstreamCallback(t, upstream.apiKey, { id: never, state: 'processing' }).expect(204);
      await postUpstreamCallback(t, upstream.apiKey, { id: later, state: 'processing' }).expect(204);
      expect((await kept.findBy({ taskId: never })).map((row) => row.status)).toEqual([{ taskId: never, state: 'processing', errCode: null, creations: null }]);
      await kept.update({ taskId: never }, { receivedAt: new Date(Date.now() - 61 * 60_000) });
      await t.app.get(ReservationRecovery).sweep();
      expect(await kept.countBy({ taskId: never })).toBe(0);
      expect(await kept.countBy({ taskId: later })).toBe(1);
    });

    it('applies with the recovery sweep a kept state its create left (it stopped just after storing the task)', async () => {
      const user = await t.createUser({ credits: 100 });
      const taskId = await createTask(user);
      // What a create that stopped between storing its task and applying the kept states leaves behind.
      const status = { taskId, state: 'failed' as const, errCode: 'ModerationFailed', creations: null };
      await t.dataSource.getRepository(EarlyUpstreamStatusEntity).insert({ taskId, status, receivedAt: new Date() });
      await t.app.get(ReservationRecovery).sweep();
      expect(await t.dataSource.getRepository(VideoTaskEntity).findOneByOrFail({ taskId })).toMatchObject({ state: 'failed', errCode: 'ModerationFailed' });
      expect(await balanceOf(user)).toBe(100);
      expect(await t.dataSource.getRepository(EarlyUpstreamStatusEntity).countBy({ taskId })).toBe(0);
    });

    it('refuses a callback whose task id is longer than any it stores (128 characters)', async () => {
      const taskId = 'x'.repeat(129);
      const res = await postUpstreamCallback(t, upstream.apiKey, { id: taskId, state: 'processing' }).expect(400);
      expect(res.body.message).toContain('not a task status');
      expect(await t.dataSource.getRepository(EarlyUpstreamStatusEntity).countBy({ taskId })).toBe(0);
    });

    it('accepts a nonce once even when its deliveries race', async () => {
      const user = await t.createUser({ credits: 100 });
      const taskId = await createTask(user);
      const headers = signedAsUpstream(upstream.apiKey);
      const replies = await Promise.all(
        Array.from({ length: 6 }, () => t.http.post(UPSTREAM_CALLBACK_PATH).set(headers).send({ id: taskId, state: 'queueing' })),
      );
      expect(replies.map((r) => r.status).sort()).toEqual([204, 401, 401, 401, 401, 401]);
    });

    it('accepts callbacks larger than 1 MB (the upstream echoes payload and images)', async () => {
      const user = await t.createUser({ credits: 100 });
      const taskId = await createTask(user);
      await postUpstreamCallback(t, upstream.apiKey, { id: taskId, state: 'processing', payload: 'p'.repeat(2_000_000) }).expect(204);
      expect((await t.http.get(`/proxy/video/tasks/${taskId}`).set(user.auth)).body.state).toBe('processing');
    });

    it('rejects a signed callback whose body is not a task status', async () => {
      await postUpstreamCallback(t, upstream.apiKey, { state: 'nonsense' }).expect(400);
    });
  });

  describe('client callbacks', () => {
    // Each test here has its own receiver, so no other test's late delivery is counted.
    let own: CallbackReceiver;
    beforeEach(async () => {
      own = await CallbackReceiver.start();
    });
    afterEach(() => own.close());

    it('retry until the receiver accepts, and arrive in state order', async () => {
      const user = await t.createUser({ credits: 100 });
      const taskId = await createTask(user, { callback_url: own.url });
      own.failNext.push(500, 503);
      await postUpstreamCallback(t, upstream.apiKey, { id: taskId, state: 'queueing' }).expect(204);
      await postUpstreamCallback(t, upstream.apiKey, { id: taskId, state: 'processing' }).expect(204);
      await postUpstreamCallback(t, upstream.apiKey, { id: taskId, state: 'success', creations: [] }).expect(204);
      const delivered = await own.waitFor(3);
      expect(delivered.map((d) => d.body.state)).toEqual(['queueing', 'processing', 'success']);
      expect(own.attempts).toBe(5);
      // The worker records a delivery just after the receiver answers: wait for the record, not only the request.
      const recorded = async () => t.dataSource.getRepository(CallbackDeliveryEntity).find({ where: { taskId }, order: { id: 'ASC' } });
      for (let i = 0; i < 100 && (await recorded()).some((r) => r.deliveredAt === null); i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect((await recorded()).map((r) => [r.attempts, r.deliveredAt !== null])).toEqual([[3, true], [1, true], [1, true]]);
    });

    it('reach every receiver when many tasks change at once', async () => {
      const user = await t.createUser({ credits: 1000 });
      const taskIds = [];
      for (let i = 0; i < 30; i++) taskIds.push(await createTask(user, { callback_url: own.url }));
      const replies = await Promise.all(taskIds.map((id) => postUpstreamCallback(t, upstream.apiKey, { id, state: 'success', creations: [] })));
      expect(replies.every((r) => r.status === 204)).toBe(true);
      const delivered = await own.waitFor(30, 30000);
      expect(new Set(delivered.map((d) => d.body.task_id))).toEqual(new Set(taskIds));
      await t.http.get('/users/me').set(user.auth).expect(200);
    });

    it('are signed with the rotated secret after a rotation', async () => {
      const user = await t.createUser({ credits: 100 });
      const first = (await t.http.get('/users/me/webhook-secret').set(user.auth).expect(200)).body.secret as string;
      expect(first).toMatch(/^whsec_/);
      expect((await t.http.get('/users/me/webhook-secret').set(user.auth)).body.secret).toBe(first);
      const rotated = (await t.http.post('/users/me/webhook-secret/rotate').set(user.auth).expect(200)).body.secret as string;
      expect(rotated).not.toBe(first);

      const taskId = await createTask(user, { callback_url: own.url });
      await postUpstreamCallback(t, upstream.apiKey, { id: taskId, state: 'queueing' }).expect(204);
      const [delivery] = await own.waitFor(1);
      expect(verifySignature(rotated, delivery.rawBody, delivery.headers['x-signature'])).toBe(true);
      expect(verifySignature(first, delivery.rawBody, delivery.headers['x-signature'])).toBe(false);
    });
  });
});

describe('Client callbacks across a restart', () => {
  it('are delivered by the next process when the first stopped before delivering', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'registry-restart-'));
    const upstream = await FakeUpstream.start();
    const receiver = await CallbackReceiver.start();
    const env = { ...upstreamEnv(upstream), ...APP_ENV, DATABASE_URL: process.env.TEST_DATABASE_URL ?? `sqlite:${join(dir, 'restart.db')}` };
    try {
      receiver.status = 503; // down while the first process runs
      const first = await TestApp.start(env);
      const user = await first.createUser({ credits: 100 });
      const { body } = await first.http.post('/proxy/video/reference2video').set(user.auth).send({ duration: 2, callback_url: receiver.url }).expect(200);
      await postUpstreamCallback(first, upstream.apiKey, { id: body.task_id, state: 'success', creations: [] }).expect(204);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await first.close();
      expect(receiver.received).toHaveLength(0);

      receiver.status = 200;
      const second = await TestApp.start(env);
      try {
        const [delivery] = await receiver.waitFor(1);
        expect(delivery.body).toMatchObject({ task_id: body.task_id, state: 'success' });
      } finally {
        await second.close();
      }
    } finally {
      await upstream.close();
      await receiver.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Client callback addresses', () => {
  it('refuses loopback and private callback URLs unless CALLBACK_ALLOW_PRIVATE=true', async () => {
    const video = await VideoApp.start({ ...APP_ENV, CALLBACK_ALLOW_PRIVATE: 'false' });
    const { testApp: t, upstream } = video;
    try {
      const user = await t.createUser({ credits: 100 });
      for (const url of ['http://127.0.0.1:9/hook', 'http://localhost/hook', 'http://10.0.0.7/hook', 'http://[::1]/hook', 'http://0x100000000/h']) {
        const res = await t.http.post('/proxy/video/reference2video').set(user.auth).send({ duration: 2, callback_url: url }).expect(400);
        expect(res.body.message).toBe('callback_url must be a public http(s) address (not loopback or private)');
      }
      expect(upstream.requests).toHaveLength(0);

      // The rules that need the configuration (the default model's duration, a public callback) are reported in
      // the same reply as every other problem (CONTRACT §1), not only once the rest is fixed.
      const everything = await t.http
        .post('/proxy/video/reference2video')
        .set(user.auth)
        .send({ duration: 9, callback_url: 'http://10.0.0.7/hook', aspect_ratio: 5 })
        .expect(400);
      expect(everything.body.message).toBe(
        'aspect_ratio must be a string; duration must be from 1 to 8 seconds for model videoq2-turbo; ' +
          'callback_url must be a public http(s) address (not loopback or private)',
      );
      // A field whose own rules failed is told only those.
      const wrongTypes = await t.http.post('/proxy/video/reference2video').set(user.auth).send({ duration: '9', callback_url: 'ftp://10.0.0.7/hook' }).expect(400);
      expect(wrongTypes.body.message).toBe('callback_url must be an absolute http(s) URL; duration must be an integer number');
      expect(upstream.requests).toHaveLength(0);

      // A stored callback address that turns out to be private is refused at delivery time, for good.
      const { body } = await t.http.post('/proxy/video/reference2video').set(user.auth).send({ duration: 2 }).expect(200);
      await t.dataSource.getRepository(VideoTaskEntity).update({ taskId: body.task_id }, { callbackUrl: 'http://localhost:9/hook' });
      await postUpstreamCallback(t, upstream.apiKey, { id: body.task_id, state: 'queueing' }).expect(204);
      const deliveries = t.dataSource.getRepository(CallbackDeliveryEntity);
      for (let i = 0; i < 100 && !(await deliveries.findOneByOrFail({ taskId: body.task_id })).abandonedAt; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const refused = await deliveries.findOneByOrFail({ taskId: body.task_id });
      expect(refused).toMatchObject({ attempts: 1, deliveredAt: null, lastError: expect.stringContaining('loopback or private') });
    } finally {
      await video.close();
    }
  });
});

describe('The whole loop with the built-in sandbox', () => {
  it('walks a task to success with signed upstream callbacks and signed client callbacks', async () => {
    const probe = createServer().listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const port = (probe.address() as { port: number }).port;
    probe.close();
    const receiver = await CallbackReceiver.start();
    const t = await TestApp.start({
      VIDEO_UPSTREAM_URL: '',
      VIDEO_UPSTREAM_API_KEY: '',
      PUBLIC_BASE_URL: '',
      PORT: String(port),
      CALLBACK_ALLOW_PRIVATE: 'true',
      CALLBACK_RETRY_BASE_MS: '100',
    });
    try {
      const user = await t.createUser({ credits: 100 });
      const { body } = await t.http.post('/proxy/video/reference2video').set(user.auth).send({ model: 'videoq2-turbo', duration: 2, callback_url: receiver.url }).expect(200);
      const deliveries = await receiver.waitFor(3, 20000);
      expect(deliveries.map((d) => d.body.state)).toEqual(['queueing', 'processing', 'success']);
      const { secret } = (await t.http.get('/users/me/webhook-secret').set(user.auth)).body;
      expect(deliveries.every((d) => verifySignature(secret, d.rawBody, d.headers['x-signature']))).toBe(true);
      const task = await t.http.get(`/proxy/video/tasks/${body.task_id}`).set(user.auth).expect(200);
      expect(task.body).toMatchObject({ state: 'success', creations: [expect.objectContaining({ url: expect.any(String), cover_url: expect.any(String) })] });
      // Its creations link to the sandbox itself (loopback, allowed here): kept, and served with their type.
      let kept = task.body.creations[0] as { store_state: string; stored_url?: string };
      for (let i = 0; i < 100 && kept.store_state === 'pending'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        kept = (await t.http.get(`/proxy/video/tasks/${body.task_id}`).set(user.auth)).body.creations[0];
      }
      const stored = new URL(kept.stored_url ?? 'http://missing');
      expect((await t.http.get(`${stored.pathname}${stored.search}`).expect(200)).headers['content-type']).toBe('video/mp4');
    } finally {
      await t.close();
      await receiver.close();
    }
  });

  it('keeps the sandbox’s results without CALLBACK_ALLOW_PRIVATE: their loopback address is its own, not a client’s', async () => {
    const t = await TestApp.start({ VIDEO_UPSTREAM_URL: '', VIDEO_UPSTREAM_API_KEY: '', CALLBACK_ALLOW_PRIVATE: 'false' });
    try {
      const user = await t.createUser({ credits: 100 });
      const { body } = await t.http.post('/proxy/video/reference2video').set(user.auth).send({ model: 'videoq2-turbo', duration: 2 }).expect(200);
      let creation: { store_state?: string; stored_url?: string } | undefined;
      for (let i = 0; i < 300 && creation?.store_state !== 'stored'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        [creation] = (await t.http.get(`/proxy/video/tasks/${body.task_id}`).set(user.auth).expect(200)).body.creations ?? [];
      }
      expect(creation?.store_state).toBe('stored');
      const stored = new URL(creation?.stored_url ?? 'http://missing');
      expect((await t.http.get(`${stored.pathname}${stored.search}`).expect(200)).headers['content-type']).toBe('video/mp4');
    } finally {
      await t.close();
    }
  });
});
