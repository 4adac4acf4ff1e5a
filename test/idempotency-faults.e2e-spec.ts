import { CreditReservationEntity } from '../src/users/entities/credit-reservation.entity';
import { IdempotencyKeyEntity } from '../src/video-proxy/entities/idempotency-key.entity';
import { ReservationRecovery } from '../src/video-proxy/reservation-recovery';
import { CommitGate, holdCommits } from './support/commit-gate';
import { injectWriteFault, WriteFault } from './support/fault-injection';
import { FakeUpstream } from './support/fake-upstream';
import { TestApp, TestUser } from './support/test-app';
import { videoAppForSuite } from './support/video-app';

const ROUTE = '/proxy/video/reference2video';

/**
 * Idempotency-Key under database faults after the upstream has accepted the
 * task: a retry with the same key never charges twice, and never creates a
 * second task while the database can record the first's outcome (when it
 * cannot, the recovery sweep treats the create as a crash's, §8).
 */
describe('Idempotency-Key when a step after the upstream’s acceptance fails', () => {
  let upstream: FakeUpstream;
  let t: TestApp;
  videoAppForSuite({}, (video) => ({ upstream, testApp: t } = video));
  beforeEach(() => upstream.reset());

  const create = (user: TestUser, key: string) =>
    t.http.post(ROUTE).set(user.auth).set('Idempotency-Key', key).send({ prompt: 'a lighthouse', duration: 2 });
  const balanceOf = async (user: TestUser) => (await t.http.get('/users/me').set(user.auth).expect(200)).body.credits as number;
  const ledgerKinds = async (user: TestUser) =>
    ((await t.http.get('/users/me/ledger?limit=100').set(user.auth).expect(200)).body.entries as { kind: string }[]).map((e) => e.kind);
  const tasksOf = async (user: TestUser) =>
    ((await t.http.get('/proxy/video/tasks').set(user.auth).expect(200)).body.tasks as { task_id: string }[]).map((task) => task.task_id);

  it('recording the key’s reply fails: the client still gets its task, and a retry replays it, charged once', async () => {
    const user = await t.createUser({ credits: 100 });
    upstream.credits = 12; // differs from the estimate, so the settlement is a ledger entry of its own
    const removeFault = await injectWriteFault(t.dataSource, {
      table: 'idempotency_keys',
      event: 'UPDATE',
      when: `NEW."user_id" = '${user.id}' AND NEW."state" = 'done'`,
    });
    let first;
    let retry;
    try {
      first = await create(user, 'order-1').expect(200);
      retry = await create(user, 'order-1').expect(200);
    } finally {
      await removeFault();
    }
    const later = await create(user, 'order-1').expect(200);

    expect(retry.body).toEqual(first.body);
    expect(later.body).toEqual(first.body);
    expect(upstream.requests.filter((r) => r.path === '/ent/v2/reference2video')).toHaveLength(1);
    expect(await tasksOf(user)).toEqual([first.body.task_id]);
    expect(await balanceOf(user)).toBe(88);
    expect(await ledgerKinds(user)).toEqual(['settle', 'reserve', 'grant']);
  });

  const storeFaults: [string, (userId: string) => WriteFault][] = [
    ['storing the task', (userId) => ({ table: 'video_tasks', event: 'INSERT', when: `NEW."user_id" = '${userId}'` })],
    ['settling the charge', (userId) => ({ table: 'credit_ledger', event: 'INSERT', when: `NEW."user_id" = '${userId}' AND NEW."kind" = 'settle'` })],
  ];

  it.each(storeFaults)('%s fails: 502, nothing charged, and a retry gets the same answer without a second upstream task', async (_step, fault) => {
    const user = await t.createUser({ credits: 100 });
    upstream.credits = 12;
    const removeFault = await injectWriteFault(t.dataSource, fault(user.id));
    let first;
    try {
      first = await create(user, 'order-2').expect(502);
    } finally {
      await removeFault();
    }
    expect(first.body.message).toContain('nothing was charged');

    const retry = await create(user, 'order-2').expect(502);
    expect(retry.body.message).toBe(first.body.message);
    expect(upstream.requests.filter((r) => r.path === '/ent/v2/reference2video')).toHaveLength(1);
    expect(await tasksOf(user)).toEqual([]);
    expect(await balanceOf(user)).toBe(100);
    expect(await ledgerKinds(user)).toEqual(['release', 'reserve', 'grant']);
  });

  it('storing the task and then recording that failure both fail: the key stays claimed with its credits held (409) until the recovery sweep ends both', async () => {
    const user = await t.createUser({ credits: 100 });
    const removeTaskFault = await injectWriteFault(t.dataSource, { table: 'video_tasks', event: 'INSERT', when: `NEW."user_id" = '${user.id}'` });
    const removeKeyFault = await injectWriteFault(t.dataSource, { table: 'idempotency_keys', event: 'UPDATE', when: `NEW."user_id" = '${user.id}'` });
    try {
      await create(user, 'order-3').expect(502);
    } finally {
      await removeTaskFault();
      await removeKeyFault();
    }
    // The failure is recorded with the release, in one transaction: neither happened, so the create looks interrupted.
    const retry = await create(user, 'order-3').expect(409);
    expect(retry.body.message).toContain('still in progress');
    expect(upstream.requests).toHaveLength(1);
    expect(await balanceOf(user)).toBe(90);
    expect(await ledgerKinds(user)).toEqual(['reserve', 'grant']);

    // As after a crash (docs/api-rules.md §8): the sweep gives the credits back and frees the key together, and a
    // retry runs anew (a second upstream task; the first, never recorded, was never charged).
    const afterGrace = new Date(Date.now() + 60_000);
    expect(await t.app.get(ReservationRecovery).sweep(afterGrace)).toBe(1);
    expect(await balanceOf(user)).toBe(100);
    expect(await ledgerKinds(user)).toEqual(['release', 'reserve', 'grant']);
    const rerun = await create(user, 'order-3').expect(200);
    expect(upstream.requests).toHaveLength(2);
    expect(await tasksOf(user)).toEqual([rerun.body.task_id]);
    expect(await balanceOf(user)).toBe(100 - rerun.body.credits);
  });

  const onPostgres = process.env.TEST_DATABASE_URL ? it : it.skip;

  /** Sends the create, runs `whileHeld` while its commit waits at `gate`, then lets it through; its reply. */
  async function createHeldAt(gate: CommitGate, user: TestUser, key: string, whileHeld: () => Promise<void>) {
    const reply = create(user, key).then((res) => res);
    try {
      await gate.reached();
      await whileHeld();
    } finally {
      await gate.release();
    }
    return reply;
  }

  onPostgres('a claimed key is never seen without its reservation: both commit in one transaction', async () => {
    const user = await t.createUser({ credits: 100 });
    const gate = await holdCommits(t.dataSource, 'credit_reservations', `NEW."user_id" = '${user.id}'`, 'INSERT');
    const created = await createHeldAt(gate, user, 'order-5', async () => {
      // A process that died here would have left neither: no claim that no sweep could free.
      expect(await t.dataSource.manager.countBy(IdempotencyKeyEntity, { userId: user.id })).toBe(0);
    });
    expect(created.status).toBe(200);
    expect(await t.dataSource.manager.countBy(IdempotencyKeyEntity, { userId: user.id, state: 'done' })).toBe(1);
  });

  onPostgres('an upstream refusal is recorded for replay in the transaction that releases the credits', async () => {
    const user = await t.createUser({ credits: 100 });
    upstream.respondNext({ status: 400, body: { message: 'prompt refused' } });
    const gate = await holdCommits(t.dataSource, 'idempotency_keys', `NEW."user_id" = '${user.id}'`);
    const refused = await createHeldAt(gate, user, 'order-6', async () => {
      // Until that commit, the reservation is still open: a process that died here would be swept, key and credits.
      expect(await t.dataSource.manager.countBy(CreditReservationEntity, { userId: user.id })).toBe(1);
    });
    expect(refused.status).toBe(400);
    expect((await create(user, 'order-6').expect(400)).body.message).toContain('prompt refused');
    expect(upstream.requests).toHaveLength(1);
    expect(await balanceOf(user)).toBe(100);
    expect(await t.dataSource.manager.countBy(CreditReservationEntity, { userId: user.id })).toBe(0);
  });

  it('a failure before the upstream accepted still frees the key for a retry', async () => {
    const user = await t.createUser({ credits: 100 });
    upstream.respondNext({ status: 503, body: { code: 'busy' } });
    await create(user, 'order-4').expect(502);
    const retry = await create(user, 'order-4').expect(200);
    expect(upstream.requests).toHaveLength(2);
    expect(await tasksOf(user)).toEqual([retry.body.task_id]);
    expect(await balanceOf(user)).toBe(90);
  });
});
