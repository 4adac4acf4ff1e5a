import { randomUUID } from 'node:crypto';
import { MAX_DELIVERY_ATTEMPTS } from '../src/video-proxy/callbacks/callback-delivery.worker';
import { signHeaders } from '../src/video-proxy/callbacks/upstream-signature';
import { CallbackDeliveryEntity } from '../src/video-proxy/entities/callback-delivery.entity';
import { CallbackReceiver } from './support/callback-receiver';
import { eventually, injectWriteFault } from './support/fault-injection';
import { FakeUpstream } from './support/fake-upstream';
import { TestApp } from './support/test-app';

const CALLBACK_PATH = '/proxy/video/callbacks/upstream';

describe('A client callback whose attempt throws (CallbackDeliveryWorker)', () => {
  let upstream: FakeUpstream;
  let receiver: CallbackReceiver;
  let t: TestApp;

  beforeAll(async () => {
    upstream = await FakeUpstream.start();
    receiver = await CallbackReceiver.start();
    t = await TestApp.start({
      VIDEO_UPSTREAM_URL: upstream.url,
      VIDEO_UPSTREAM_API_KEY: upstream.apiKey,
      VIDEO_DEFAULT_MODEL: 'videoq2-turbo',
      PUBLIC_BASE_URL: 'https://registry.example.com',
      CALLBACK_ALLOW_PRIVATE: 'true',
      CALLBACK_RETRY_BASE_MS: '100',
    });
  });
  afterAll(async () => {
    await t.close();
    await upstream.close();
    await receiver.close();
  });

  it('counts the attempt, is abandoned at the cap like any other, and the task’s later callbacks proceed', async () => {
    const user = await t.createUser({ credits: 100 });
    const created = await t.http
      .post('/proxy/video/reference2video')
      .set(user.auth)
      .send({ duration: 2, callback_url: receiver.url })
      .expect(200);
    const taskId = created.body.task_id as string;
    const deliveries = t.dataSource.getRepository(CallbackDeliveryEntity);

    // The user has no webhook secret yet; creating it is the write that fails, so every attempt
    // for this user throws before anything is sent.
    const removeFault = await injectWriteFault(t.dataSource, { table: 'users', event: 'UPDATE', when: `NEW."id" = '${user.id}'` });
    try {
      // A delivery one attempt short of the cap (as after an hour of failures), then a later state change of the task.
      const now = new Date();
      await deliveries.insert({
        taskId,
        userId: user.id,
        url: receiver.url,
        body: JSON.stringify({ task_id: taskId, state: 'queueing' }),
        attempts: MAX_DELIVERY_ATTEMPTS - 1,
        nextAttemptAt: now,
        deliveredAt: null,
        abandonedAt: null,
        lastError: null,
        createdAt: now,
      });
      const headers = signHeaders(upstream.apiKey, 'AK', { method: 'POST', path: CALLBACK_PATH, query: {} }, randomUUID());
      await t.http.post(CALLBACK_PATH).set(headers).send({ id: taskId, state: 'success', creations: [] }).expect(204);

      const first = async () => deliveries.findOneOrFail({ where: { taskId }, order: { id: 'ASC' } });
      await eventually(async () => (await first()).abandonedAt !== null, 'the throwing delivery is abandoned');
      expect(await first()).toMatchObject({ attempts: MAX_DELIVERY_ATTEMPTS, deliveredAt: null, lastError: expect.stringContaining('could not send') });
    } finally {
      await removeFault();
    }

    const delivered = await receiver.waitForTask(taskId);
    expect(delivered.body).toMatchObject({ task_id: taskId, state: 'success' });
    expect(receiver.received.filter((d) => d.body.task_id === taskId)).toHaveLength(1);
  });
});
