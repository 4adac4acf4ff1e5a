import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { VideoResultEntity } from '../src/video-proxy/entities/video-result.entity';
import { ResultDownloadWorker } from '../src/video-proxy/results/result-download.worker';
import { ResultLinks } from '../src/video-proxy/results/result-links';
import { RESULT_STORAGE } from '../src/video-proxy/results/result-storage';
import { ArchiveStorage } from '../src/archives/archive-storage';
import { CallbackReceiver } from './support/callback-receiver';
import { holdCommits } from './support/commit-gate';
import { FakeUpstream, ServedFile } from './support/fake-upstream';
import { expectNoNulls } from './support/no-nulls';
import { TestApp, TestUser } from './support/test-app';
import { CLIENT_CALLBACK_ENV, createVideoTask, postUpstreamCallback, PUBLIC_BASE_URL, VideoApp, videoAppForSuite } from './support/video-app';

/** An ISO base media (mp4) file: an `ftyp` box, then filler. */
const mp4 = (size: number) => Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom', 'latin1'), randomBytes(size - 12)]);
const webm = (size: number) => Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3]), randomBytes(size - 4)]);
const jpeg = (size: number) => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(size - 4)]);
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

interface Creation {
  id: string;
  store_state?: string;
  stored_url?: string;
  stored_cover_url?: string;
}

const APP_ENV = { ...CLIENT_CALLBACK_ENV, VIDEO_UPSTREAM_TIMEOUT_MS: '2000' };

/** The path and query of one of this service's links, for supertest. */
const pathOf = (link: string | undefined) => {
  expect(link?.startsWith(`${PUBLIC_BASE_URL}/proxy/video/results/`)).toBe(true);
  const url = new URL(link ?? '');
  return `${url.pathname}${url.search}`;
};

describe('Video results kept (api-rules §4.4)', () => {
  let upstream: FakeUpstream;
  let receiver: CallbackReceiver;
  let t: TestApp;
  videoAppForSuite(APP_ENV, (video) => ({ upstream, receiver, testApp: t } = video));
  beforeEach(() => upstream.reset());

  const upstreamCallback = (body: object) => postUpstreamCallback(t, upstream.apiKey, body);
  const createTask = (user: TestUser) => createVideoTask(t, user);

  /** A creation whose video and cover the fake's CDN serves. */
  function creation(video: Buffer, cover: Buffer, options: { failFirst?: number } = {}) {
    const id = `c-${randomUUID()}`;
    return { id, url: upstream.serveFile(`${id}.mp4`, video, options), cover_url: upstream.serveFile(`${id}.jpg`, cover) };
  }

  /** The task's creations once their files are no longer pending. */
  async function settledCreations(user: TestUser, taskId: string): Promise<Creation[]> {
    for (let i = 0; i < 200; i++) {
      const { body } = await t.http.get(`/proxy/video/tasks/${taskId}`).set(user.auth).expect(200);
      const creations = body.creations as Creation[];
      if (creations.length > 0 && creations.every((c) => c.store_state !== 'pending')) {
        expectNoNulls(body);
        return creations;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`the results of ${taskId} were never settled`);
  }

  it('keeps a success reached by polling, and serves it with its type, ETag, Range and cache lifetime, after the upstream’s link is gone', async () => {
    const user = await t.createUser({ credits: 100 });
    const taskId = await createTask(user);
    const [video, cover] = [mp4(300_000), jpeg(20_000)];
    const made = creation(video, cover);
    upstream.taskStatus.set(taskId, { state: 'success', creations: [made] });

    const [kept] = await settledCreations(user, taskId);
    expect(kept).toMatchObject({ id: made.id, url: made.url, cover_url: made.cover_url, store_state: 'stored' });
    upstream.files.clear();

    const whole = await t.http.get(pathOf(kept.stored_url)).expect(200);
    expect(whole.headers['content-type']).toBe('video/mp4');
    expect(whole.headers.etag).toBe(`"${sha256(video)}"`);
    expect(whole.headers['accept-ranges']).toBe('bytes');
    // Playable by a <video> tag on another origin (the frontend's).
    expect(whole.headers['cross-origin-resource-policy']).toBe('cross-origin');
    const maxAge = Number(/^private, max-age=(\d+)$/.exec(whole.headers['cache-control'])?.[1]);
    expect(maxAge).toBeGreaterThan(604_800 - 60);
    expect(maxAge).toBeLessThanOrEqual(604_800);
    expect(Buffer.compare(whole.body as Buffer, video)).toBe(0);

    const part = await t.http.get(pathOf(kept.stored_url)).set('Range', 'bytes=1000-1999').expect(206);
    expect(part.headers['content-range']).toBe(`bytes 1000-1999/${video.length}`);
    expect(Buffer.compare(part.body as Buffer, video.subarray(1000, 2000))).toBe(0);

    const still = await t.http.get(pathOf(kept.stored_cover_url)).expect(200);
    expect(still.headers['content-type']).toBe('image/jpeg');
    expect(Buffer.compare(still.body as Buffer, cover)).toBe(0);
    expect((await t.http.get(pathOf(kept.stored_url)).set('If-None-Match', `"${sha256(video)}"`)).status).toBe(304);
  });

  it('keeps a success reached by callback, retrying a flaky link, and lists it with fresh links', async () => {
    const user = await t.createUser({ credits: 100 });
    const taskId = await createTask(user);
    const video = webm(100_000);
    const made = creation(video, jpeg(5_000), { failFirst: 2 });
    await upstreamCallback({ id: taskId, state: 'success', creations: [made] }).expect(204);

    const [kept] = await settledCreations(user, taskId);
    expect(kept.store_state).toBe('stored');
    const res = await t.http.get(pathOf(kept.stored_url)).expect(200);
    expect(res.headers['content-type']).toBe('video/webm');
    expect(Buffer.compare(res.body as Buffer, video)).toBe(0);
    const job = await t.dataSource.getRepository(VideoResultEntity).findOneByOrFail({ taskId, kind: 'video' });
    expect(job).toMatchObject({ state: 'stored', attempts: 3, sha256: sha256(video) });

    const listed = (await t.http.get('/proxy/video/tasks').set(user.auth).expect(200)).body.tasks as { creations: Creation[] }[];
    expect(listed[0].creations[0].stored_url).toMatch(/\?expires=\d+&signature=/);
  });

  it('answers 403 to a missing, forged or expired signature, and lets the owner and admins in with their token', async () => {
    const [owner, other, admin] = [await t.createUser({ credits: 100 }), await t.createUser(), await t.createUser({ admin: true })];
    const taskId = await createTask(owner);
    const video = mp4(50_000);
    upstream.taskStatus.set(taskId, { state: 'success', creations: [creation(video, jpeg(1_000))] });
    const [kept] = await settledCreations(owner, taskId);
    const bare = `/proxy/video/results/${sha256(video)}`;
    const link = new URL(kept.stored_url ?? '');

    await t.http.get(bare).expect(403);
    await t.http.get(bare).set(other.auth).expect(403);
    await t.http.get(`${bare}?expires=${link.searchParams.get('expires')}&signature=forged`).expect(403);
    await t.http.get(`${bare}?expires=${Number(link.searchParams.get('expires')) + 1}&signature=${link.searchParams.get('signature')}`).expect(403);
    // The link as given works, also beside a stale or unknown token (the signature is the credential); with another
    // parameter it is 400, as on every route.
    await t.http.get(pathOf(kept.stored_url ?? '')).expect(200);
    await t.http.get(pathOf(kept.stored_url ?? '')).set('Authorization', 'Bearer nrt_unknown').expect(200);
    await t.http.get(bare).set('Authorization', 'Bearer nrt_unknown').expect(403);
    await t.http.get(`${pathOf(kept.stored_url ?? '')}&t=1`).expect(400);
    const expired = await t.app.get(ResultLinks).sign(sha256(video), PUBLIC_BASE_URL, Date.now() - 700_000_000);
    expect((await t.http.get(pathOf(expired)).expect(403)).body.message).toBe('result link has expired');

    const byOwner = await t.http.get(bare).set(owner.auth).expect(200);
    expect(byOwner.headers['cache-control']).toBe('private, no-cache');
    await t.http.get(bare).set(admin.auth).expect(200);
    await t.http.get(`/proxy/video/results/${'0'.repeat(64)}`).set(admin.auth).expect(404);
  });

  it('keeps the creations of a success reported without them, once a later callback brings them', async () => {
    const user = await t.createUser({ credits: 100 });
    const taskId = await createVideoTask(t, user, { callback_url: receiver.url });
    await upstreamCallback({ id: taskId, state: 'success' }).expect(204);
    // Still none when asked: a success without creations shows an empty list.
    upstream.taskStatus.set(taskId, { state: 'success' });
    const early = (await t.http.get(`/proxy/video/tasks/${taskId}`).set(user.auth).expect(200)).body;
    expect(early).toMatchObject({ state: 'success', creations: [] });

    const made = creation(mp4(20_000), jpeg(2_000));
    await upstreamCallback({ id: taskId, state: 'success', creations: [made] }).expect(204);
    const [kept] = await settledCreations(user, taskId);
    expect(kept).toMatchObject({ id: made.id, store_state: 'stored' });
    expect((await t.http.get(`/users/me`).set(user.auth).expect(200)).body.credits).toBe(90);
    // The client heard of the success twice: without its creations, then with them.
    const deliveries = () => receiver.received.filter((d) => d.body.task_id === taskId);
    for (let waited = 0; deliveries().length < 2 && waited < 5000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(deliveries().map((d) => d.body)).toMatchObject([
      { state: 'success', creations: [] },
      { state: 'success', creations: [{ id: made.id }] },
    ]);
    // Settled now: a later report changes nothing, and a GET no longer asks the upstream.
    await upstreamCallback({ id: taskId, state: 'success', creations: [creation(mp4(1_000), jpeg(1_000))] }).expect(204);
    const asked = upstream.requests.length;
    const again = (await t.http.get(`/proxy/video/tasks/${taskId}`).set(user.auth).expect(200)).body as { creations: Creation[] };
    expect(again.creations.map((c) => c.id)).toStrictEqual([made.id]);
    expect(upstream.requests).toHaveLength(asked);
  });

  it('asks the upstream for the creations of a task its create reply already called successful', async () => {
    const user = await t.createUser({ credits: 100 });
    const taskId = `fake-done-${randomUUID()}`;
    upstream.respondNext({ body: { task_id: taskId, state: 'success', credits: 10 } });
    expect(await createTask(user)).toBe(taskId);
    const made = creation(mp4(20_000), jpeg(2_000));
    upstream.taskStatus.set(taskId, { state: 'success', creations: [made] });

    const [kept] = await settledCreations(user, taskId);
    expect(kept).toMatchObject({ id: made.id, store_state: 'stored' });
    expect(upstream.requests.some((r) => r.method === 'GET' && r.path === `/ent/v2/tasks/${taskId}/creations`)).toBe(true);
    expect((await t.http.get(`/users/me`).set(user.auth).expect(200)).body.credits).toBe(90);
  });

  it('records a success whose links run past 2 KB, with a repeated creation id and one too long to keep, and no cover', async () => {
    const user = await t.createUser({ credits: 100 });
    const taskId = await createTask(user);
    const video = mp4(20_000);
    const made = creation(video, jpeg(2_000));
    // A pre-signed CDN link: its token alone is longer than 2,048 characters.
    const presigned = { ...made, url: `${made.url}?X-Amz-Security-Token=${'a'.repeat(2_100)}` };
    const overlong = { id: 'c'.repeat(200), url: upstream.serveFile('overlong.mp4', mp4(5_000)) };
    await upstreamCallback({ id: taskId, state: 'success', creations: [presigned, { ...made, url: `${made.url}?again=1` }, overlong] }).expect(204);

    const creations = await settledCreations(user, taskId);
    expect(creations.map((c) => c.id)).toStrictEqual([made.id, made.id, overlong.id]);
    expect(creations[0]).toMatchObject({ url: presigned.url, store_state: 'stored' });
    // The overlong id has no files kept, and no cover to show: the key is left out, not empty.
    expect(creations[2]).toStrictEqual({ id: overlong.id, url: overlong.url });
    const jobs = await t.dataSource.getRepository(VideoResultEntity).findBy({ taskId });
    expect(jobs.map((job) => [job.creationId, job.kind, job.sourceUrl]).sort()).toStrictEqual(
      [
        [made.id, 'cover', made.cover_url],
        [made.id, 'video', presigned.url],
      ].sort(),
    );
    const res = await t.http.get(pathOf(creations[0].stored_url)).expect(200);
    expect(Buffer.compare(res.body as Buffer, video)).toBe(0);
  });

  it('deletes results past the retention period: their links then answer 410', async () => {
    const user = await t.createUser({ credits: 100 });
    const taskId = await createTask(user);
    const video = mp4(10_000);
    upstream.taskStatus.set(taskId, { state: 'success', creations: [creation(video, jpeg(1_000))] });
    const [kept] = await settledCreations(user, taskId);
    const file = join(t.storageDir, 'results', sha256(video).slice(0, 2), `${sha256(video)}.bin`);
    expect(existsSync(file)).toBe(true);

    await t.dataSource.getRepository(VideoResultEntity).update({ taskId }, { storedAt: new Date(Date.now() - 31 * 86_400_000) });
    expect(await t.app.get(ResultDownloadWorker).sweepRetention()).toBeGreaterThanOrEqual(2);
    expect(existsSync(file)).toBe(false);
    expect((await t.http.get(pathOf(kept.stored_url)).expect(410)).body.message).toContain('retention');
    const [after] = (await t.http.get(`/proxy/video/tasks/${taskId}`).set(user.auth).expect(200)).body.creations as Creation[];
    expect(after.store_state).toBe('deleted');
    expect(after).not.toHaveProperty('stored_url');
  });

  it('sweeps on past a result it cannot delete, keeping that one for the next sweep', async () => {
    const user = await t.createUser({ credits: 100 });
    const keep = async (video: Buffer) => {
      const taskId = await createTask(user);
      upstream.taskStatus.set(taskId, { state: 'success', creations: [creation(video, jpeg(1_000))] });
      await settledCreations(user, taskId);
      await t.dataSource.getRepository(VideoResultEntity).update({ taskId }, { storedAt: new Date(Date.now() - 31 * 86_400_000) });
      return join(t.storageDir, 'results', sha256(video).slice(0, 2), `${sha256(video)}.bin`);
    };
    const [stuck, deletable] = [mp4(10_000), mp4(10_000)];
    const stuckFile = await keep(stuck);
    const deletableFile = await keep(deletable);
    // A directory where the file was: the storage cannot delete it.
    rmSync(stuckFile);
    mkdirSync(join(stuckFile, 'held'), { recursive: true });
    try {
      await t.app.get(ResultDownloadWorker).sweepRetention();
      expect(existsSync(deletableFile)).toBe(false);
      expect((await t.dataSource.getRepository(VideoResultEntity).findOneByOrFail({ sha256: sha256(stuck) })).state).toBe('stored');
    } finally {
      rmSync(stuckFile, { recursive: true, force: true });
    }
  });

  describe('the retention sweep meeting other writers of the same bytes (PostgreSQL: SQLite runs one writer at a time)', () => {
    const onPostgres = process.env.TEST_DATABASE_URL ? it : it.skip;
    const pastRetention = (taskId: string) =>
      t.dataSource.getRepository(VideoResultEntity).update({ taskId }, { storedAt: new Date(Date.now() - 31 * 86_400_000) });
    /** A task whose one creation is `video` and `cover`, kept, then past its retention; its creation. */
    async function expiredCreation(user: TestUser, video: Buffer, cover: Buffer): Promise<Creation> {
      const taskId = await createTask(user);
      upstream.taskStatus.set(taskId, { state: 'success', creations: [creation(video, cover)] });
      const [kept] = await settledCreations(user, taskId);
      await pastRetention(taskId);
      return kept;
    }
    const fileOf = (data: Buffer) => join(t.storageDir, 'results', sha256(data).slice(0, 2), `${sha256(data)}.bin`);

    onPostgres('never deletes bytes a download of the same bytes is marking stored', async () => {
      const user = await t.createUser({ credits: 100 });
      const [video, cover] = [mp4(10_000), jpeg(1_000)];
      const expired = await expiredCreation(user, video, cover);
      const freshTask = await createTask(user);
      const gate = await holdCommits(t.dataSource, 'video_results', `NEW."task_id" = '${freshTask}' AND NEW."state" = 'stored'`);
      let sweep: Promise<number> | undefined;
      try {
        upstream.taskStatus.set(freshTask, { state: 'success', creations: [creation(video, cover)] });
        await t.http.get(`/proxy/video/tasks/${freshTask}`).set(user.auth).expect(200);
        await gate.reached();
        // The sweep comes while the download's "stored" waits at its commit.
        sweep = t.app.get(ResultDownloadWorker).sweepRetention();
        await Promise.race([sweep, new Promise((resolve) => setTimeout(resolve, 500))]);
      } finally {
        await gate.release();
      }
      await sweep;
      const [fresh] = await settledCreations(user, freshTask);
      expect(fresh.store_state).toBe('stored');
      // Both files: the sweep meets whichever of the two downloads holds its lock first.
      expect(Buffer.compare((await t.http.get(pathOf(fresh.stored_url)).expect(200)).body as Buffer, video)).toBe(0);
      expect(Buffer.compare((await t.http.get(pathOf(fresh.stored_cover_url)).expect(200)).body as Buffer, cover)).toBe(0);
      expect(existsSync(fileOf(video))).toBe(true);
      expect(existsSync(fileOf(cover))).toBe(true);
      // Its link names the same bytes, kept for the fresh task: it still serves them; its own record is deleted.
      const expiredRows = await t.dataSource.getRepository(VideoResultEntity).findBy({ creationId: expired.id });
      expect(expiredRows.map((row) => row.state)).toEqual(['deleted', 'deleted']);
    });

    onPostgres('deletes the file when two sweeps delete its last two holders at once', async () => {
      const user = await t.createUser({ credits: 100 });
      const [video, cover] = [mp4(10_000), jpeg(1_000)];
      await expiredCreation(user, video, cover);
      await expiredCreation(user, video, cover);
      const holders = await t.dataSource.getRepository(VideoResultEntity).findBy({ sha256: sha256(video) });
      expect(holders.map((holder) => holder.state)).toEqual(['stored', 'stored']);
      const [first, second] = holders;
      const worker = t.app.get(ResultDownloadWorker);
      const gate = await holdCommits(t.dataSource, 'video_results', `NEW."id" = '${first.id}' AND NEW."state" = 'deleted'`);
      let firstSweep: Promise<boolean> | undefined;
      let secondSweep: Promise<boolean> | undefined;
      try {
        // Each sweep sees the other holder still stored until the first one's deletion commits.
        firstSweep = worker.deleteExpired(first);
        await gate.reached();
        secondSweep = worker.deleteExpired(second);
        await Promise.race([secondSweep, new Promise((resolve) => setTimeout(resolve, 500))]);
      } finally {
        await gate.release();
      }
      expect(await Promise.all([firstSweep, secondSweep])).toEqual([true, true]);
      expect(existsSync(fileOf(video))).toBe(false);
    });
  });

  it('an attempt that lost its lease to another instance leaves the job to it and no file behind', async () => {
    const user = await t.createUser({ credits: 100 });
    const taskId = await createTask(user);
    const video = mp4(60_000);
    const id = `c-${randomUUID()}`;
    const slow = { id, url: upstream.serveFile(`${id}.mp4`, video, { chunkDelayMs: 100, chunkBytes: 10_000 }), cover_url: upstream.serveFile(`${id}.jpg`, jpeg(1_000)) };
    const deleted = new Promise<string>((resolve) => {
      const storage = t.app.get<ArchiveStorage>(RESULT_STORAGE);
      const spy = jest.spyOn(storage, 'delete').mockImplementation(async (name) => {
        spy.mockRestore();
        await storage.delete(name);
        resolve(name);
      });
    });
    await upstreamCallback({ id: taskId, state: 'success', creations: [slow] }).expect(204);
    const rows = t.dataSource.getRepository(VideoResultEntity);
    const leased = async () => (await rows.findOneBy({ taskId, kind: 'video', attempts: 1 })) !== null;
    for (let waited = 0; !(await leased()) && waited < 5000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    // Another instance takes the job over while the bytes still come.
    await rows.update({ taskId, kind: 'video' }, { attempts: 2 });
    expect(await deleted).toBe(sha256(video));
    expect(existsSync(join(t.storageDir, 'results', sha256(video).slice(0, 2), `${sha256(video)}.bin`))).toBe(false);
    expect(await rows.findOneByOrFail({ taskId, kind: 'video' })).toMatchObject({ state: 'pending', attempts: 2 });
  });

  it('records a file as failed once the upstream’s links have expired', async () => {
    const user = await t.createUser({ credits: 100 });
    const taskId = await createTask(user);
    const made = { id: 'gone', url: `${upstream.url}/files/never-there.mp4`, cover_url: `${upstream.url}/files/never-there.jpg` };
    upstream.taskStatus.set(taskId, { state: 'success', creations: [made] });
    await t.http.get(`/proxy/video/tasks/${taskId}`).set(user.auth).expect(200);
    // A day later, as far as the job knows.
    await t.dataSource.getRepository(VideoResultEntity).update({ taskId }, { linksExpireAt: new Date(Date.now() + 300) });
    const [failed] = await settledCreations(user, taskId);
    expect(failed).toMatchObject({ id: 'gone', store_state: 'failed' });
    expect(failed).not.toHaveProperty('stored_url');
    const job = await t.dataSource.getRepository(VideoResultEntity).findOneByOrFail({ taskId, kind: 'video' });
    expect(job.lastError).toBeTruthy();
  });
});

describe('Video results that cannot be kept', () => {
  /** Runs an app with `env`, a task whose one creation (no cover) links to `data`; the job as it ends. */
  async function keptWith(env: Record<string, string>, data: Buffer, served: Omit<ServedFile, 'data'> = {}): Promise<{ job: VideoResultEntity; fetched: number }> {
    const video = await VideoApp.start({ ...APP_ENV, ...env });
    const { testApp: t, upstream } = video;
    try {
      const user = await t.createUser({ credits: 100 });
      const taskId = await createVideoTask(t, user);
      const url = upstream.serveFile('file.mp4', data, served);
      upstream.taskStatus.set(taskId, { state: 'success', creations: [{ id: 'p', url, cover_url: '' }] });
      await t.http.get(`/proxy/video/tasks/${taskId}`).set(user.auth).expect(200);
      const jobs = t.dataSource.getRepository(VideoResultEntity);
      for (let i = 0; i < 100 && (await jobs.findOneByOrFail({ taskId })).state === 'pending'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return { job: await jobs.findOneByOrFail({ taskId }), fetched: upstream.requests.filter((r) => r.path.startsWith('/files/')).length };
    } finally {
      await video.close();
    }
  }

  it('a shutdown drops a download in progress and leaves its job due at once for the next process', async () => {
    const video = await VideoApp.start(APP_ENV);
    const { testApp: t, upstream } = video;
    try {
      const user = await t.createUser({ credits: 100 });
      const taskId = await createVideoTask(t, user);
      // 30 chunks 200 ms apart: still coming when the shutdown starts.
      const url = upstream.serveFile('slow.mp4', mp4(30_000), { chunkBytes: 1_000, chunkDelayMs: 200 });
      upstream.taskStatus.set(taskId, { state: 'success', creations: [{ id: 'p', url, cover_url: '' }] });
      await t.http.get(`/proxy/video/tasks/${taskId}`).set(user.auth).expect(200);
      const jobs = t.dataSource.getRepository(VideoResultEntity);
      for (let i = 0; i < 100 && (await jobs.findOneByOrFail({ taskId })).attempts === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));

      await t.app.get(ResultDownloadWorker).beforeApplicationShutdown();
      const job = await jobs.findOneByOrFail({ taskId });
      expect(job).toMatchObject({ state: 'pending', attempts: 1, sha256: null, lastError: 'interrupted by a shutdown' });
      expect(job.nextAttemptAt.getTime()).toBeLessThanOrEqual(Date.now());
    } finally {
      await video.close();
    }
  });

  it('never fetches from loopback or private addresses unless CALLBACK_ALLOW_PRIVATE=true', async () => {
    const { job, fetched } = await keptWith({ CALLBACK_ALLOW_PRIVATE: 'false' }, mp4(1_000));
    expect(job).toMatchObject({ state: 'failed', attempts: 1, lastError: expect.stringContaining('loopback or private') });
    expect(fetched).toBe(0);
  });

  it('fails a link that redirects at once (redirects are never followed; a retry would redirect again)', async () => {
    const { job, fetched } = await keptWith({ CALLBACK_ALLOW_PRIVATE: 'true' }, mp4(1_000), { redirectTo: 'https://elsewhere.example/file.mp4' });
    expect(job).toMatchObject({ state: 'failed', attempts: 1, sha256: null, lastError: expect.stringContaining('HTTP 302 (a redirect') });
    expect(fetched).toBe(1);
  });

  it('stops a file that grows past VIDEO_RESULT_MAX_BYTES as it comes (no length declared), for good, leaving nothing stored', async () => {
    const { job } = await keptWith({ VIDEO_RESULT_MAX_BYTES: '1000' }, mp4(3_000), { undeclaredLength: true, chunkBytes: 600, chunkDelayMs: 100 });
    expect(job).toMatchObject({ state: 'failed', attempts: 1, sha256: null, lastError: 'the file is larger than VIDEO_RESULT_MAX_BYTES (1000)' });
  });

  it('refuses a file over VIDEO_RESULT_MAX_BYTES for good, leaving nothing stored', async () => {
    const { job, fetched } = await keptWith({ VIDEO_RESULT_MAX_BYTES: '1000' }, mp4(1_001));
    expect(job).toMatchObject({ state: 'failed', attempts: 1, sha256: null, lastError: 'the file is larger than VIDEO_RESULT_MAX_BYTES (1000)' });
    expect(fetched).toBe(1);
  });
});
