import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { In } from 'typeorm';
import { TransactionRunner } from '../src/database/transaction-runner';
import { CreditsService } from '../src/users/credits.service';
import { CreditReservationEntity } from '../src/users/entities/credit-reservation.entity';
import { IdempotencyKeyEntity } from '../src/video-proxy/entities/idempotency-key.entity';
import { VideoResultEntity } from '../src/video-proxy/entities/video-result.entity';
import { ReservationRecovery } from '../src/video-proxy/reservation-recovery';
import { ServerProcess, waitFor } from './support/server-process';
import { TestApp } from './support/test-app';
import { VideoServers } from './support/video-app';

/**
 * docs/api-rules.md §8, crash recovery: a create interrupted by the death of its
 * process (SIGKILL while it waits on the upstream) has its reservation
 * released by the next live instance, the ledger says so, and its
 * Idempotency-Key runs anew. On SQLite (a file), or on TEST_DATABASE_URL.
 */
describe('Crash recovery of interrupted creates', () => {
  const dir = mkdtempSync(join(tmpdir(), 'registry-crash-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const create = { model: 'videoq2-turbo', prompt: 'a lighthouse in a storm', duration: 4, images: ['https://example.com/a.png'] };
  const ESTIMATE = 20; // videoq2-turbo: 5 credits a second, 4 s

  it('SIGKILL mid-create, restart: the reservation is released once, the ledger explains it, the same key then charges once', async () => {
    const servers = await VideoServers.open(dir, 'crash.sqlite', {
      VIDEO_UPSTREAM_TIMEOUT_MS: '4000',
      VIDEO_RESERVATION_GRACE_MS: '1000',
      VIDEO_RECOVERY_SWEEP_MS: '500',
    });
    const { upstream, database } = servers;
    let server = await servers.start();
    try {
      const user = await database.seedUser(1000);
      await server.ready();
      const send = (target: ServerProcess) =>
        fetch(`${target.url}/proxy/video/reference2video`, {
          method: 'POST',
          headers: { ...user.auth, 'Content-Type': 'application/json', 'Idempotency-Key': 'crash-order-1' },
          body: JSON.stringify(create),
        });

      // The upstream holds the create (longer than the proxy's deadline), and the process dies while it waits.
      upstream.respondNext({ delayMs: 3000, dropConnection: true });
      const interrupted = send(server);
      interrupted.catch(() => undefined);
      await waitFor(() => upstream.requests.length === 1, 30000, 'the create to reach the upstream');
      await server.stop('SIGKILL');
      await expect(interrupted).rejects.toThrow('fetch failed');
      // What the issue saw: the reservation held, and nothing after it.
      expect(await database.balance(user.id)).toBe(1000 - ESTIMATE);
      expect((await database.ledger(user.id)).map((entry) => entry.kind)).toEqual(['grant', 'reserve']);

      server = await servers.start();
      await server.ready();
      await waitFor(async () => (await database.balance(user.id)) === 1000, 30000, 'the reservation to be released');
      const ledger = await database.ledger(user.id);
      expect(ledger.map(({ kind, amount, balanceAfter }) => ({ kind, amount, balanceAfter }))).toEqual([
        { kind: 'grant', amount: 1000, balanceAfter: 1000 },
        { kind: 'reserve', amount: -ESTIMATE, balanceAfter: 1000 - ESTIMATE },
        { kind: 'release', amount: ESTIMATE, balanceAfter: 1000 },
      ]);
      await waitFor(() => server.output().includes('interrupted'), 10000, 'the release to be logged');
      const logged = server.logLines().find((line) => String(line.msg).includes('interrupted'));
      expect(logged).toMatchObject({ userId: user.id, amount: ESTIMATE, idempotencyKey: 'crash-order-1' });

      // The key was freed: the retry runs anew, and a second retry replays it. Charged once.
      upstream.credits = ESTIMATE;
      const retried = await send(server);
      expect(retried.status).toBe(200);
      const task = (await retried.json()) as { task_id: string; credits: number };
      expect(task.credits).toBe(ESTIMATE);
      const replayed = await send(server);
      expect(replayed.status).toBe(200);
      expect(((await replayed.json()) as { task_id: string }).task_id).toBe(task.task_id);
      expect(upstream.requests).toHaveLength(2);
      expect(await database.balance(user.id)).toBe(1000 - ESTIMATE);
      expect((await database.ledger(user.id)).map((entry) => entry.kind)).toEqual(['grant', 'reserve', 'release', 'reserve']);
    } finally {
      await server.stop();
      await servers.close();
    }
  });

  it('sweeps racing each other release an interrupted reservation exactly once, and free its key in the same step', async () => {
    // Long sweep interval: only the sweeps this test starts run.
    const t = await TestApp.start({ VIDEO_RECOVERY_SWEEP_MS: '30000', VIDEO_UPSTREAM_TIMEOUT_MS: '1000', VIDEO_RESERVATION_GRACE_MS: '1000' });
    try {
      const user = await t.createUser({ credits: 100 });
      const manager = t.dataSource.manager;
      const old = new Date(Date.now() - 60_000);
      // As a keyed create reserves: in the transaction that claims its key (the claims are inserted below).
      const reserve = (amount: number, key: string) =>
        t.app.get(TransactionRunner).run((manager) => t.app.get(CreditsService).reserveWithin(manager, user.id, amount, key));
      await reserve(30, 'race-key');
      const live = await reserve(5, 'live-key');
      // A free create (a model priced 0) takes no credit, but its key is freed all the same.
      await reserve(0, 'free-key');
      await manager.update(CreditReservationEntity, { userId: user.id, idempotencyKey: In(['race-key', 'free-key']) }, { createdAt: old });
      await manager.insert(IdempotencyKeyEntity, [
        { id: 'k1', userId: user.id, key: 'race-key', requestHash: 'x', state: 'in_flight', reply: null, createdAt: old },
        { id: 'k2', userId: user.id, key: 'live-key', requestHash: 'y', state: 'in_flight', reply: null, createdAt: new Date() },
        { id: 'k3', userId: user.id, key: 'free-key', requestHash: 'z', state: 'in_flight', reply: null, createdAt: old },
      ]);

      const recovery = t.app.get(ReservationRecovery);
      const released = await Promise.all([1, 2, 3, 4, 5].map(() => recovery.sweep()));
      expect(released.reduce((sum, n) => sum + n, 0)).toBe(2);

      const ledger = (await t.http.get('/users/me/ledger').set(user.auth).expect(200)).body.entries as { kind: string; amount: number; balance_after: number }[];
      expect(ledger.filter((entry) => entry.kind === 'release')).toEqual([expect.objectContaining({ amount: 30 })]);
      expect(ledger[0].balance_after).toBe(95);
      expect((await manager.findBy(IdempotencyKeyEntity, { userId: user.id })).map((key) => key.key)).toEqual(['live-key']);
      // The live create's reservation is untouched, and it can still be settled.
      expect((await manager.findBy(CreditReservationEntity, { userId: user.id })).map((row) => row.id)).toEqual([live.id]);
    } finally {
      await t.close();
    }
  });
});

/**
 * docs/api-rules.md §4.4: a result download interrupted by the death of its
 * process (SIGKILL while the file streams) is taken up by the next process
 * once its lease runs out, and finished once.
 */
describe('Crash recovery of interrupted result downloads', () => {
  const dir = mkdtempSync(join(tmpdir(), 'registry-results-crash-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('SIGKILL mid-download, restart: the file is stored once, and served', async () => {
    const servers = await VideoServers.open(dir, 'results.sqlite', { CALLBACK_ALLOW_PRIVATE: 'true', CALLBACK_RETRY_BASE_MS: '100' });
    const { upstream, database } = servers;
    // 4 MiB in 64 KiB chunks 30 ms apart: about 2 s to send, killed part-way.
    const video = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypmp42', 'latin1'), randomBytes(4 * 1024 * 1024 - 12)]);
    let server = await servers.start();
    try {
      const user = await database.seedUser(1000);
      await server.ready();
      const created = await fetch(`${server.url}/proxy/video/reference2video`, {
        method: 'POST',
        headers: { ...user.auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ model: 'videoq2-turbo', duration: 2 }),
      });
      const { task_id: taskId } = (await created.json()) as { task_id: string };
      const url = upstream.serveFile('slow.mp4', video, { chunkDelayMs: 30 });
      upstream.taskStatus.set(taskId, { state: 'success', creations: [{ id: 'c1', url, cover_url: '' }] });
      expect((await fetch(`${server.url}/proxy/video/tasks/${taskId}`, { headers: user.auth })).status).toBe(200);

      await waitFor(() => upstream.requests.some((r) => r.path === '/files/slow.mp4'), 30000, 'the download to start');
      await new Promise((resolve) => setTimeout(resolve, 500));
      await server.stop('SIGKILL');
      const jobs = database.dataSource.getRepository(VideoResultEntity);
      expect(await jobs.findOneByOrFail({ taskId })).toMatchObject({ state: 'pending', attempts: 1, sha256: null });

      server = await servers.start();
      await server.ready();
      // Within the lease (15 s) of the dead attempt, plus the download.
      await waitFor(async () => (await jobs.findOneByOrFail({ taskId })).state === 'stored', 40000, 'the download to be finished');
      const sha256 = createHash('sha256').update(video).digest('hex');
      expect(await jobs.findOneByOrFail({ taskId })).toMatchObject({ state: 'stored', attempts: 2, sha256, contentType: 'video/mp4' });
      expect(upstream.requests.filter((r) => r.path === '/files/slow.mp4')).toHaveLength(2);
      // Nothing of the interrupted attempt is left behind under a name.
      expect(readdirSync(join(servers.storageDir, 'results', sha256.slice(0, 2)))).toEqual([`${sha256}.bin`]);

      const task = (await (await fetch(`${server.url}/proxy/video/tasks/${taskId}`, { headers: user.auth })).json()) as {
        creations: { stored_url: string }[];
      };
      const served = await fetch(task.creations[0].stored_url);
      expect(served.status).toBe(200);
      expect(served.headers.get('content-type')).toBe('video/mp4');
      expect(Buffer.from(await served.arrayBuffer()).equals(video)).toBe(true);
    } finally {
      await server.stop();
      await servers.close();
    }
  }, 90_000);
});
