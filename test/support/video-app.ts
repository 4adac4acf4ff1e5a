import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { MAX_DELIVERY_ATTEMPTS } from '../../src/video-proxy/callbacks/callback-delivery.worker';
import { signHeaders } from '../../src/video-proxy/callbacks/upstream-signature';
import { CallbackDeliveryEntity } from '../../src/video-proxy/entities/callback-delivery.entity';
import { CallbackReceiver } from './callback-receiver';
import { FakeUpstream } from './fake-upstream';
import { freePort, ServerProcess, TestDatabase } from './server-process';
import { TestApp, TestUser } from './test-app';

/** Where the upstream posts task changes; written out, not imported from src, so that moving it fails the suites. */
export const UPSTREAM_CALLBACK_PATH = '/proxy/video/callbacks/upstream';

/** Where the suites that hand out links and callback addresses say this service is reached. */
export const PUBLIC_BASE_URL = 'https://registry.example.com';

/** The app's settings that put it in front of `upstream`; a create naming no model asks for videoq2-turbo (5 credits a second). */
export function upstreamEnv(upstream: FakeUpstream): Record<string, string> {
  return { VIDEO_UPSTREAM_URL: upstream.url, VIDEO_UPSTREAM_API_KEY: upstream.apiKey, VIDEO_DEFAULT_MODEL: 'videoq2-turbo' };
}

/**
 * For suites that follow a task to its client callbacks or kept results: the upstream is handed a
 * public callback address, the fakes on loopback may be called back and fetched from, and a failed
 * attempt is retried within a test's time.
 */
export const CLIENT_CALLBACK_ENV: Record<string, string> = { PUBLIC_BASE_URL, CALLBACK_ALLOW_PRIVATE: 'true', CALLBACK_RETRY_BASE_MS: '100' };

/** The real app in front of a fake upstream, and a client's endpoint for the callbacks it delivers. */
export class VideoApp {
  private constructor(
    readonly testApp: TestApp,
    readonly upstream: FakeUpstream,
    readonly receiver: CallbackReceiver,
  ) {}

  /** `env` adds to, or overrides, upstreamEnv(upstream). */
  static async start(env: Record<string, string> = {}): Promise<VideoApp> {
    const upstream = await FakeUpstream.start();
    const receiver = await CallbackReceiver.start();
    try {
      return new VideoApp(await TestApp.start({ ...upstreamEnv(upstream), ...env }), upstream, receiver);
    } catch (error) {
      await upstream.close();
      await receiver.close();
      throw error;
    }
  }

  async close(): Promise<void> {
    try {
      await this.testApp.close();
    } finally {
      await this.upstream.close();
      await this.receiver.close();
    }
  }
}

/**
 * One VideoApp for a describe block's tests: started before them and handed to `keep` (which puts
 * its parts where the tests read them), closed after them.
 */
export function videoAppForSuite(env: Record<string, string>, keep: (video: VideoApp) => void): void {
  let video: VideoApp | undefined;
  beforeAll(async () => {
    video = await VideoApp.start(env);
    keep(video);
  });
  afterAll(() => video?.close());
}

/** The headers the upstream signs a callback with (`key`, its API key), under a fresh nonce unless one is given. */
export function signedAsUpstream(key: string, options: { date?: Date; nonce?: string } = {}): Record<string, string> {
  return signHeaders(key, 'AK', { method: 'POST', path: UPSTREAM_CALLBACK_PATH, query: {} }, options.nonce ?? randomUUID(), options.date);
}

/** Posts `body` to the upstream callback endpoint, signed with `key` as the upstream signs it, or with `headers`. */
export function postUpstreamCallback(t: TestApp, key: string, body: object, headers = signedAsUpstream(key)) {
  return t.http.post(UPSTREAM_CALLBACK_PATH).set(headers).send(body);
}

/** A task (2 s unless `body` says otherwise) created by `user`; its id. */
export async function createVideoTask(t: TestApp, user: TestUser, body: object = {}): Promise<string> {
  const res = await t.http.post('/proxy/video/reference2video').set(user.auth).send({ duration: 2, ...body }).expect(200);
  return res.body.task_id as string;
}

/**
 * A client callback delivery due now, one attempt short of the cap (as after an hour of failures):
 * its next failed attempt gives it up.
 */
export async function queueDeliveryOneAttemptShortOfCap(dataSource: DataSource, delivery: { taskId: string; userId: string; url: string }): Promise<void> {
  const now = new Date();
  await dataSource.getRepository(CallbackDeliveryEntity).insert({
    ...delivery,
    body: JSON.stringify({ task_id: delivery.taskId, state: 'queueing' }),
    attempts: MAX_DELIVERY_ATTEMPTS - 1,
    nextAttemptAt: now,
    deliveredAt: null,
    abandonedAt: null,
    lastError: null,
    createdAt: now,
  });
}

/**
 * Real server processes (as production runs them) in front of a fake upstream, one after another
 * on one database: TEST_DATABASE_URL, or the SQLite file `sqliteFile` in `dir`. The test process
 * opens that database too, to seed users and read what the processes persisted.
 */
export class VideoServers {
  private constructor(
    readonly upstream: FakeUpstream,
    readonly database: TestDatabase,
    private readonly env: Record<string, string>,
  ) {}

  /** `env` adds to the processes' environment. Their archives and kept results go under `dir` too. */
  static async open(dir: string, sqliteFile: string, env: Record<string, string>): Promise<VideoServers> {
    const upstream = await FakeUpstream.start();
    const databaseUrl = process.env.TEST_DATABASE_URL ?? `sqlite:${join(dir, sqliteFile)}`;
    const database = await TestDatabase.open(databaseUrl);
    return new VideoServers(upstream, database, {
      DATABASE_URL: databaseUrl,
      // The tests read what the processes log.
      LOG_LEVEL: 'info',
      THROTTLE_LIMIT: '0',
      STORAGE_DIR: join(dir, 'archives'),
      ...upstreamEnv(upstream),
      ...env,
    });
  }

  get storageDir(): string {
    return this.env.STORAGE_DIR;
  }

  /** A process on a free port, still starting: await its ready() before sending it requests. */
  async start(): Promise<ServerProcess> {
    return ServerProcess.start({ ...this.env, PORT: String(await freePort()) });
  }

  async close(): Promise<void> {
    await this.database.close();
    await this.upstream.close();
  }
}
