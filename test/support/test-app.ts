import { INestApplication } from '@nestjs/common';
import { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createApp, CreateAppOptions } from '../../src/app.factory';
import { CreditsService } from '../../src/users/credits.service';
import { UsersService } from '../../src/users/users.service';

export interface TestUser {
  id: string;
  email: string;
  token: string;
  auth: { Authorization: string };
}

/** A short unique suffix, so suites can share one PostgreSQL database without colliding. */
export function unique(prefix: string): string {
  return `${prefix}-${randomBytes(5).toString('hex')}`;
}

/**
 * The real application (same factory, modules, pipeline and migrations as
 * production) on SQLite in memory, or on TEST_DATABASE_URL when it is set.
 * Archives go to a temporary STORAGE_DIR of its own, removed on close(),
 * unless `env` names one.
 */
export class TestApp {
  private constructor(
    readonly app: INestApplication,
    /** Where this app's archives are stored. */
    readonly storageDir: string,
    private readonly cleanUp: () => Promise<void>,
  ) {}

  /** `env` is in force until close(): a later app in the same file does not inherit it. */
  static async start(env: Record<string, string> = {}, options: CreateAppOptions = {}): Promise<TestApp> {
    const ownStorageDir = env.STORAGE_DIR === undefined ? await mkdtemp(join(tmpdir(), 'test-archives-')) : undefined;
    const storageDir = ownStorageDir ?? env.STORAGE_DIR;
    const restoreEnvironment = setEnvironment({
      DATABASE_URL: process.env.TEST_DATABASE_URL ?? 'sqlite::memory:',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      // Suites fire many requests from one IP; the rate-limit suite turns this on for itself.
      THROTTLE_LIMIT: '0',
      // Background checks would add upstream calls to what suites count; the poller's suite turns them on.
      VIDEO_STATUS_POLL_MS: '0',
      STORAGE_DIR: storageDir,
      ...env,
    });
    const cleanUp = async () => {
      restoreEnvironment();
      if (ownStorageDir) await rm(ownStorageDir, { recursive: true, force: true });
    };
    let app: INestApplication | undefined;
    try {
      app = await createApp(options);
      // Listening from the start, on one port (PORT, else a free one), every request reaches the app at one origin, as a deployed service's
      // clients do (replies' links and the read cache's keys follow the origin; supertest would pick a port per request).
      await app.listen(Number(env.PORT ?? 0), '127.0.0.1');
      return new TestApp(app, storageDir, cleanUp);
    } catch (error) {
      await app?.close();
      await cleanUp();
      throw error;
    }
  }

  /** The base URL the app listens at (a free local port), for clients that need a real URL (fetch, the public registry's clients). */
  listen(): Promise<string> {
    return Promise.resolve(`http://127.0.0.1:${(this.app.getHttpServer().address() as AddressInfo).port}`);
  }

  get http() {
    return request(this.app.getHttpServer());
  }

  get dataSource(): DataSource {
    return this.app.get(DataSource);
  }

  /** Bootstraps a user and token the way operators do (the CLI calls the same service). */
  async createUser(options: { admin?: boolean; credits?: number } = {}): Promise<TestUser> {
    const users = this.app.get(UsersService);
    const email = `${unique('user')}@example.com`;
    const user = await users.createUser({ email, name: 'Test User', is_admin: options.admin ?? false });
    const { token } = await users.createToken(user.id, { name: 'test' });
    if (options.credits) {
      await this.app.get(CreditsService).grant(user.id, options.credits);
    }
    return { id: user.id, email, token, auth: { Authorization: `Bearer ${token}` } };
  }

  async close(): Promise<void> {
    try {
      await this.app.close();
    } finally {
      await this.cleanUp();
    }
  }
}

/** Sets the variables; the returned function puts back what they were (unset ones unset again). */
function setEnvironment(values: Record<string, string>): () => void {
  const previous = Object.keys(values).map((name) => [name, process.env[name]] as const);
  Object.assign(process.env, values);
  return () => {
    for (const [name, value] of previous) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}
