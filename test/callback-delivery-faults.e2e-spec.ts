import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { CallbackDeliveryWorker, MAX_DELIVERY_ATTEMPTS } from '../src/video-proxy/callbacks/callback-delivery.worker';
import { CallbackDeliveryEntity } from '../src/video-proxy/entities/callback-delivery.entity';
import { CallbackReceiver } from './support/callback-receiver';
import { injectWriteFault } from './support/fault-injection';
import { FakeUpstream } from './support/fake-upstream';
import { TestApp } from './support/test-app';
import { CLIENT_CALLBACK_ENV, createVideoTask, postUpstreamCallback, queueDeliveryOneAttemptShortOfCap, VideoApp, videoAppForSuite } from './support/video-app';
import { waitFor } from './support/server-process';

describe('A client callback whose attempt throws (CallbackDeliveryWorker)', () => {
  let upstream: FakeUpstream;
  let receiver: CallbackReceiver;
  let t: TestApp;
  videoAppForSuite(CLIENT_CALLBACK_ENV, (video) => ({ upstream, receiver, testApp: t } = video));

  it('counts the attempt, is abandoned at the cap like any other, and the task’s later callbacks proceed', async () => {
    const user = await t.createUser({ credits: 100 });
    const taskId = await createVideoTask(t, user, { callback_url: receiver.url });
    const deliveries = t.dataSource.getRepository(CallbackDeliveryEntity);

    // The user has no webhook secret yet; creating it is the write that fails, so every attempt
    // for this user throws before anything is sent.
    const removeFault = await injectWriteFault(t.dataSource, { table: 'users', event: 'UPDATE', when: `NEW."id" = '${user.id}'` });
    try {
      // A delivery one attempt short of the cap (as after an hour of failures), then a later state change of the task.
      await queueDeliveryOneAttemptShortOfCap(t.dataSource, { taskId, userId: user.id, url: receiver.url });
      await postUpstreamCallback(t, upstream.apiKey, { id: taskId, state: 'success', creations: [] }).expect(204);

      const first = async () => deliveries.findOneOrFail({ where: { taskId }, order: { id: 'ASC' } });
      await waitFor(async () => (await first()).abandonedAt !== null, 10_000, 'the throwing delivery to be abandoned');
      expect(await first()).toMatchObject({ attempts: MAX_DELIVERY_ATTEMPTS, deliveredAt: null, lastError: expect.stringContaining('could not send') });
    } finally {
      await removeFault();
    }

    const delivered = await receiver.waitForTask(taskId);
    expect(delivered.body).toMatchObject({ task_id: taskId, state: 'success' });
    expect(receiver.received.filter((d) => d.body.task_id === taskId)).toHaveLength(1);
  });
});

describe('A shutdown while a client callback is in flight (CallbackDeliveryWorker)', () => {
  it('waits for the receiver’s answer and records the delivery, so the next process does not send it again', async () => {
    const video = await VideoApp.start(CLIENT_CALLBACK_ENV);
    let arrived: () => void = () => undefined;
    const posted = new Promise<void>((resolve) => (arrived = resolve));
    // Answers 6 s after the callback arrives: longer than a shutdown waits for other background jobs.
    const slowReceiver = createServer((req, res) => {
      req.resume();
      arrived();
      setTimeout(() => res.end('ok'), 6000);
    });
    await new Promise<void>((resolve) => slowReceiver.listen(0, '127.0.0.1', resolve));
    try {
      const { testApp: t, upstream } = video;
      const user = await t.createUser({ credits: 100 });
      const url = `http://127.0.0.1:${(slowReceiver.address() as AddressInfo).port}/hook`;
      const taskId = await createVideoTask(t, user, { callback_url: url });
      await postUpstreamCallback(t, upstream.apiKey, { id: taskId, state: 'processing' }).expect(204);
      await posted;

      await t.app.get(CallbackDeliveryWorker).beforeApplicationShutdown();
      const delivery = await t.dataSource.getRepository(CallbackDeliveryEntity).findOneByOrFail({ taskId });
      expect(delivery).toMatchObject({ attempts: 1, deliveredAt: expect.any(Date) });
    } finally {
      await video.close();
      slowReceiver.closeAllConnections();
      await new Promise((resolve) => slowReceiver.close(resolve));
    }
  });
});
