import { randomUUID } from 'node:crypto';
import { VideoTaskEntity } from '../src/video-proxy/entities/video-task.entity';
import { VideoTasksRepository } from '../src/video-proxy/video-tasks.repository';
import { VideoTasksService } from '../src/video-proxy/video-tasks.service';
import { CallbackReceiver } from './support/callback-receiver';
import { FakeUpstream } from './support/fake-upstream';
import { sleep } from './support/archive-uploads';
import { waitFor } from './support/server-process';
import { TestApp, TestUser } from './support/test-app';
import { createVideoTask, videoAppForSuite } from './support/video-app';

/**
 * Background task checks (TaskStatusPoller, docs/api-rules.md §4.2), without
 * PUBLIC_BASE_URL: no upstream callback ever comes, so only they tell a task
 * nobody polls that it has ended.
 */
describe('Background task status checks', () => {
  let upstream: FakeUpstream;
  let receiver: CallbackReceiver;
  let t: TestApp;
  videoAppForSuite({ CALLBACK_ALLOW_PRIVATE: 'true', CALLBACK_RETRY_BASE_MS: '100', VIDEO_STATUS_POLL_MS: '200' }, (video) => {
    ({ upstream, receiver, testApp: t } = video);
  });

  const balanceOf = async (user: TestUser) => (await t.http.get('/users/me').set(user.auth)).body.credits as number;
  const checksOf = (taskId: string) => upstream.requests.filter((r) => r.method === 'GET' && r.path === `/ent/v2/tasks/${taskId}/creations`).length;

  it('a task nobody polls learns its end: its client callback and its refund happen, then it is no longer asked about', async () => {
    const user = await t.createUser({ credits: 100 });
    const taskId = await createVideoTask(t, user, { callback_url: receiver.url });
    expect(await balanceOf(user)).toBe(90);
    expect((await t.dataSource.getRepository(VideoTaskEntity).findOneByOrFail({ taskId })).nextCheckAt).toEqual(expect.any(Date));
    upstream.taskStatus.set(taskId, { state: 'failed', err_code: 'ModerationFailed' });

    const delivery = await receiver.waitForTask(taskId);
    expect(delivery.body).toMatchObject({ task_id: taskId, state: 'failed', err_code: 'ModerationFailed' });
    expect(await balanceOf(user)).toBe(100);
    expect((await t.dataSource.getRepository(VideoTaskEntity).findOneByOrFail({ taskId })).nextCheckAt).toBeNull();
    const checks = checksOf(taskId);
    expect(checks).toBeGreaterThanOrEqual(1);
    await sleep(800);
    expect(checksOf(taskId)).toBe(checks);
  });

  it('a task its create reply calls successful gets its creations from the checks, with its client callback; then it is settled', async () => {
    const user = await t.createUser({ credits: 100 });
    const taskId = `fake-done-${randomUUID()}`;
    upstream.respondNext({ body: { task_id: taskId, state: 'success', credits: 10 } });
    await createVideoTask(t, user, { callback_url: receiver.url });
    const rows = t.dataSource.getRepository(VideoTaskEntity);
    expect((await rows.findOneByOrFail({ taskId })).nextCheckAt).toEqual(expect.any(Date));
    upstream.taskStatus.set(taskId, { state: 'success', creations: [{ id: 'c1', url: `${upstream.url}/files/c1.mp4` }] });

    // No GET: the background check alone brings the creations.
    const delivery = await receiver.waitForTask(taskId);
    expect(delivery.body).toMatchObject({ task_id: taskId, state: 'success', creations: [{ id: 'c1' }] });
    expect(await rows.findOneByOrFail({ taskId })).toMatchObject({ creations: [{ id: 'c1' }], nextCheckAt: null });
    expect(await balanceOf(user)).toBe(90);
  });

  it('a success whose creations have not come within their links’ lifetime is no longer asked about, by checks or reads', async () => {
    const user = await t.createUser({ credits: 100 });
    const taskId = `fake-done-${randomUUID()}`;
    upstream.respondNext({ body: { task_id: taskId, state: 'success', credits: 10 } });
    await createVideoTask(t, user);
    const rows = t.dataSource.getRepository(VideoTaskEntity);
    // Seen successful a day and an hour ago, before this service kept asking for creations (or its last check was missed).
    await rows.update({ taskId }, { updatedAt: new Date(Date.now() - 25 * 3600_000), nextCheckAt: new Date() });
    await waitFor(async () => (await rows.findOneByOrFail({ taskId })).nextCheckAt === null, 10_000, 'the poller to stop asking');
    const { body } = await t.http.get(`/proxy/video/tasks/${taskId}`).set(user.auth).expect(200);
    expect(body).toMatchObject({ state: 'success', creations: [] });
    expect(checksOf(taskId)).toBe(0);
  });

  it('a running task is asked about again; an upstream that cannot answer is asked again later', async () => {
    const user = await t.createUser({ credits: 100 });
    const taskId = await createVideoTask(t, user);
    // No status scripted: the upstream answers 404 until it is.
    await waitFor(() => checksOf(taskId) >= 2, 10_000, 'the upstream to be asked twice');
    upstream.taskStatus.set(taskId, { state: 'processing' });
    const tasks = t.dataSource.getRepository(VideoTaskEntity);
    await waitFor(async () => (await tasks.findOneByOrFail({ taskId })).state === 'processing', 10_000, 'the state to be applied');
    const task = await tasks.findOneByOrFail({ taskId });
    expect(task.state).toBe('processing');
    expect(task.nextCheckAt!.getTime()).toBeGreaterThan(Date.now());
  });

  it('of instances claiming one check at once, one gets it', async () => {
    const user = await t.createUser({ credits: 100 });
    const taskId = await createVideoTask(t, user);
    const rows = t.dataSource.getRepository(VideoTaskEntity);
    // Due in an hour: this app's own poller leaves it alone meanwhile.
    await rows.update({ taskId }, { nextCheckAt: new Date(Date.now() + 3_600_000) });
    const read = await rows.findOneByOrFail({ taskId });
    const tasks = t.app.get(VideoTasksRepository);
    const next = new Date(Date.now() + 7_200_000);
    const claims = await Promise.all([tasks.claimCheck(read, next), tasks.claimCheck(read, next), tasks.claimCheck(read, next)]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect((await rows.findOneByOrFail({ taskId })).nextCheckAt).toEqual(next);
  });
});

describe('Background task status checks, stopping', () => {
  let upstream: FakeUpstream;
  let t: TestApp;
  // Off: this suite runs the checks itself.
  videoAppForSuite({ VIDEO_STATUS_POLL_MS: '0' }, (video) => ({ upstream, testApp: t } = video));

  it('a shutdown ends a check at the task in hand, abandoning its upstream call', async () => {
    const user = await t.createUser({ credits: 100 });
    const taskId = await createVideoTask(t, user);
    const rows = t.dataSource.getRepository(VideoTaskEntity);
    expect((await rows.findOneByOrFail({ taskId })).nextCheckAt).toBeNull();
    await rows.update({ taskId }, { nextCheckAt: new Date(Date.now() - 1000) });
    upstream.statusDelayMs = 10_000;
    const stopping = new AbortController();
    const started = Date.now();
    const check = t.app.get(VideoTasksService).checkDueTasks(1000, stopping.signal);
    await sleep(300);
    stopping.abort();
    expect(await check).toBeGreaterThanOrEqual(1);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
