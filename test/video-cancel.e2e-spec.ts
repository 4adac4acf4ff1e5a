import { CallbackDeliveryEntity } from '../src/video-proxy/entities/callback-delivery.entity';
import { CallbackReceiver } from './support/callback-receiver';
import { FakeUpstream } from './support/fake-upstream';
import { expectNoNulls } from './support/no-nulls';
import { waitFor } from './support/server-process';
import { TestApp, TestUser } from './support/test-app';
import { CLIENT_CALLBACK_ENV, createVideoTask, postUpstreamCallback, videoAppForSuite } from './support/video-app';

interface LedgerEntry {
  kind: string;
  amount: number;
  balance_after: number;
  task_id?: string;
}

describe('Cancelling a video task (api-rules §4.4)', () => {
  let upstream: FakeUpstream;
  let receiver: CallbackReceiver;
  let t: TestApp;
  videoAppForSuite({ ...CLIENT_CALLBACK_ENV, VIDEO_UPSTREAM_TIMEOUT_MS: '1000' }, (video) => ({ upstream, receiver, testApp: t } = video));
  beforeEach(() => upstream.reset());

  /** A task of 10 credits (the fake's charge) created by `user`, in `state` at the upstream. */
  async function createTask(user: TestUser, state = 'queueing', body: object = {}): Promise<string> {
    const taskId = await createVideoTask(t, user, body);
    upstream.taskStatus.set(taskId, { state });
    return taskId;
  }
  const cancel = (user: TestUser, taskId: string) => t.http.post(`/proxy/video/tasks/${taskId}/cancel`).set(user.auth);
  const cancelCalls = () => upstream.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/cancel'));
  const balanceOf = async (user: TestUser) => (await t.http.get('/users/me').set(user.auth)).body.credits as number;
  const ledgerOf = async (user: TestUser) => (await t.http.get('/users/me/ledger').set(user.auth).expect(200)).body.entries as LedgerEntry[];
  const stateOf = async (user: TestUser, taskId: string) => (await t.http.get(`/proxy/video/tasks/${taskId}`).set(user.auth).expect(200)).body.state as string;
  const upstreamCallback = (body: object) => postUpstreamCallback(t, upstream.apiKey, body);

  /** Nothing moved: the task keeps `state`, the balance is what the create left, no refund. */
  async function expectUnchanged(user: TestUser, taskId: string, state: string): Promise<void> {
    upstream.taskStatus.set(taskId, { state });
    expect(await stateOf(user, taskId)).toBe(state);
    expect(await balanceOf(user)).toBe(90);
    expect((await ledgerOf(user)).filter((e) => e.kind === 'refund' || e.kind === 'release')).toEqual([]);
  }

  it('cancels a queueing task: canceled, every credit back once, the client told, later reports ignored', async () => {
    const user = await t.createUser({ credits: 100 });
    const taskId = await createTask(user, 'queueing', { callback_url: receiver.url });
    expect(await balanceOf(user)).toBe(90);

    const res = await cancel(user, taskId).expect(200);
    expect(res.body).toMatchObject({ task_id: taskId, state: 'canceled', credits: 10 });
    expect(res.body).not.toHaveProperty('err_code');
    expect(res.body).not.toHaveProperty('creations');
    expectNoNulls(res.body);
    const [call] = cancelCalls();
    expect(call).toMatchObject({ path: `/ent/v2/tasks/${taskId}/cancel`, body: { id: taskId } });
    expect(call.headers.authorization).toBe(`Token ${upstream.apiKey}`);

    expect(await balanceOf(user)).toBe(100);
    const [refund, reserve] = await ledgerOf(user);
    expect(refund).toMatchObject({ kind: 'refund', amount: 10, balance_after: 100, task_id: taskId });
    expect(reserve).toMatchObject({ kind: 'reserve', amount: -10, balance_after: 90, task_id: taskId });
    const delivery = await receiver.waitForTask(taskId);
    expect(delivery.body).toMatchObject({ task_id: taskId, state: 'canceled' });

    // A later upstream report (callback or poll) never moves the terminal task, nor refunds again.
    await upstreamCallback({ id: taskId, state: 'success', creations: [] }).expect(204);
    await upstreamCallback({ id: taskId, state: 'failed', err_code: 'late' }).expect(204);
    expect(await stateOf(user, taskId)).toBe('canceled');
    expect(await balanceOf(user)).toBe(100);
    expect(await t.dataSource.getRepository(CallbackDeliveryEntity).countBy({ taskId })).toBe(1);

    // Twice: the task again, without asking the upstream a second time.
    const again = await cancel(user, taskId).expect(200);
    expect(again.body.state).toBe('canceled');
    expect(cancelCalls()).toHaveLength(1);
    expect((await ledgerOf(user)).filter((e) => e.kind === 'refund')).toHaveLength(1);
  });

  it('answers 409 with the upstream’s message when the task already runs there, and changes nothing', async () => {
    const user = await t.createUser({ credits: 100 });
    const taskId = await createTask(user, 'processing');
    const res = await cancel(user, taskId).expect(409);
    expect(res.body.message).toContain('task state is processing, can not cancel');
    await expectUnchanged(user, taskId, 'processing');
  });

  it.each([
    ['the upstream fails (5xx)', { status: 500, body: { code: 'Internal', message: 'boom' } }, 502],
    ['the upstream’s reply is malformed', { status: 200, body: 'not json' }, 502],
    ['the upstream refuses the proxy’s credentials', { status: 401, body: { message: 'invalid API key' } }, 502],
    ['the upstream does not answer in time', { delayMs: 1500 }, 504],
  ])('answers when %s with an error, changing nothing', async (_case, scripted, status) => {
    const user = await t.createUser({ credits: 100 });
    const taskId = await createTask(user);
    upstream.respondNext(scripted);
    await cancel(user, taskId).expect(status);
    await expectUnchanged(user, taskId, 'queueing');
  });

  it('answers 409 for a task that already succeeded or failed, without asking the upstream', async () => {
    const user = await t.createUser({ credits: 100 });
    const done = await createTask(user);
    await upstreamCallback({ id: done, state: 'success', creations: [] }).expect(204);
    const failed = await createTask(user);
    await upstreamCallback({ id: failed, state: 'failed', err_code: 'E' }).expect(204);
    expect((await cancel(user, done).expect(409)).body.message).toContain('success');
    expect((await cancel(user, failed).expect(409)).body.message).toContain('failed');
    expect(cancelCalls()).toHaveLength(0);
    expect(await balanceOf(user)).toBe(90);
  });

  it('lets a success reported while the upstream cancels win: one terminal state, no refund', async () => {
    const user = await t.createUser({ credits: 100 });
    const taskId = await createTask(user);
    upstream.respondNext({ body: {}, delayMs: 300 });
    const canceling = cancel(user, taskId).then((res) => res);
    await waitFor(() => cancelCalls().length === 1, 5_000, 'the cancel to reach the upstream');
    await upstreamCallback({ id: taskId, state: 'success', creations: [] }).expect(204);
    expect((await canceling).status).toBe(409);
    expect(await stateOf(user, taskId)).toBe('success');
    expect(await balanceOf(user)).toBe(90);
    expect((await ledgerOf(user)).filter((e) => e.kind === 'refund')).toEqual([]);
  });

  it('ends in one terminal state with a matching ledger when cancels and end reports race', async () => {
    const user = await t.createUser({ credits: 100 });
    const taskId = await createTask(user);
    const replies = await Promise.all([
      cancel(user, taskId),
      upstreamCallback({ id: taskId, state: 'success', creations: [] }),
      cancel(user, taskId),
      upstreamCallback({ id: taskId, state: 'failed', err_code: 'E' }),
      cancel(user, taskId),
    ]);
    upstream.taskStatus.set(taskId, { state: 'success' });
    const state = await stateOf(user, taskId);
    expect(['success', 'failed', 'canceled']).toContain(state);
    const refunds = (await ledgerOf(user)).filter((e) => e.kind === 'refund');
    expect(refunds).toHaveLength(state === 'success' ? 0 : 1);
    expect(await balanceOf(user)).toBe(state === 'success' ? 90 : 100);
    const cancelStatuses = [replies[0], replies[2], replies[4]].map((r) => r.status);
    expect(cancelStatuses.every((status) => status === (state === 'canceled' ? 200 : 409))).toBe(true);
  });

  it('cancels once when two cancels race each other', async () => {
    const user = await t.createUser({ credits: 100 });
    const taskId = await createTask(user);
    const replies = await Promise.all([cancel(user, taskId), cancel(user, taskId)]);
    expect(replies.map((r) => [r.status, r.body.state])).toEqual([
      [200, 'canceled'],
      [200, 'canceled'],
    ]);
    expect(await balanceOf(user)).toBe(100);
    expect((await ledgerOf(user)).filter((e) => e.kind === 'refund')).toHaveLength(1);
  });

  it('answers 200 to a cancel whose upstream call lost the race to another cancel (the upstream refuses the second)', async () => {
    const user = await t.createUser({ credits: 100 });
    const taskId = await createTask(user);
    const before = cancelCalls().length;
    // The first cancel to reach the upstream is refused late (the task is canceled by then); the second is accepted at once.
    upstream.respondNext({ status: 400, body: { code: 'BadRequest', message: 'task state is canceled, can not cancel' }, delayMs: 500 }, { status: 200, body: {} });
    const late = cancel(user, taskId).then((reply) => reply);
    while (cancelCalls().length === before) await new Promise((resolve) => setTimeout(resolve, 10));
    expect((await cancel(user, taskId).expect(200)).body.state).toBe('canceled');
    expect((await late).status).toBe(200);
    expect((await late).body.state).toBe('canceled');
    expect((await ledgerOf(user)).filter((e) => e.kind === 'refund')).toHaveLength(1);
  });

  it('answers 200 to a cancel the upstream refuses because another cancel, not yet recorded here, canceled the task there', async () => {
    const user = await t.createUser({ credits: 100 });
    const taskId = await createTask(user);
    // The other cancel's upstream call succeeded a moment ago; its own recording of it has not happened yet.
    upstream.taskStatus.set(taskId, { state: 'canceled' });
    upstream.respondNext({ status: 400, body: { code: 'BadRequest', message: 'task state is canceled, can not cancel' } });
    expect((await cancel(user, taskId).expect(200)).body.state).toBe('canceled');
    expect(await balanceOf(user)).toBe(100);
    expect((await ledgerOf(user)).filter((e) => e.kind === 'refund')).toHaveLength(1);
  });

  it('is the owner’s or an admin’s: others get 404; an admin’s cancel refunds the owner', async () => {
    const [owner, other, admin] = [await t.createUser({ credits: 100 }), await t.createUser({ credits: 100 }), await t.createUser({ admin: true })];
    const taskId = await createTask(owner);
    await cancel(other, taskId).expect(404);
    await t.http.post(`/proxy/video/tasks/${taskId}/cancel`).expect(401);
    await cancel(owner, 'no-such-task').expect(404);
    expect(cancelCalls()).toHaveLength(0);
    expect((await cancel(admin, taskId).expect(200)).body.state).toBe('canceled');
    expect(await balanceOf(owner)).toBe(100);
    expect(await balanceOf(other)).toBe(100);
  });
});

describe('Cancelling with the built-in sandbox', () => {
  it('cancels a task before it processes, and refuses once it does', async () => {
    const t = await TestApp.start({ VIDEO_UPSTREAM_URL: '', VIDEO_UPSTREAM_API_KEY: '', PUBLIC_BASE_URL: '' });
    try {
      const user = await t.createUser({ credits: 1000 });
      const create = () => t.http.post('/proxy/video/reference2video').set(user.auth).send({ model: 'videoq2-turbo', duration: 2 }).expect(200);
      const early = (await create()).body.task_id as string;
      const late = (await create()).body.task_id as string;
      expect((await t.http.post(`/proxy/video/tasks/${early}/cancel`).set(user.auth).expect(200)).body.state).toBe('canceled');
      await new Promise((resolve) => setTimeout(resolve, 2200));
      const refused = await t.http.post(`/proxy/video/tasks/${late}/cancel`).set(user.auth).expect(409);
      expect(refused.body.message).toContain('can not cancel');
      expect((await t.http.get(`/proxy/video/tasks/${early}`).set(user.auth).expect(200)).body.state).toBe('canceled');
    } finally {
      await t.close();
    }
  });
});
