import { INestApplication } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
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
 */
export class TestApp {
  private constructor(readonly app: INestApplication) {}

  static async start(env: Record<string, string> = {}, options: CreateAppOptions = {}): Promise<TestApp> {
    Object.assign(process.env, {
      DATABASE_URL: process.env.TEST_DATABASE_URL ?? 'sqlite::memory:',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      // Suites fire many requests from one IP; the rate-limit suite turns this on for itself.
      THROTTLE_LIMIT: '0',
      ...env,
    });
    const app = await createApp(options);
    return new TestApp(app);
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
    await this.app.close();
  }
}
