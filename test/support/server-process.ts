import { ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { DataSource } from 'typeorm';
import { generateToken, hashToken } from '../../src/auth/token-hash';
import { buildDataSourceOptions } from '../../src/database/database-options';
import { parseDatabaseUrl } from '../../src/database/database-url';
import { AccessTokenEntity } from '../../src/users/entities/access-token.entity';
import { CreditLedgerEntryEntity } from '../../src/users/entities/credit-ledger-entry.entity';
import { UserEntity } from '../../src/users/entities/user.entity';

export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 30000, what = 'a condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Waits until `seen` holds, and fails if it did not hold within `withinMs` of `since`: no check that started later
 * than that may have found it false. Each check is timed by its start, so one slowed by a busy machine does not
 * count against the service.
 */
export async function expectSeenWithin(since: number, withinMs: number, seen: () => Promise<boolean>, what: string): Promise<void> {
  let lastMissStartedAt = since;
  for (;;) {
    const startedAt = Date.now();
    if (await seen()) break;
    lastMissStartedAt = startedAt;
    if (startedAt - since > 10 * withinMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  if (lastMissStartedAt - since > withinMs) {
    throw new Error(`${what} took more than ${withinMs} ms: a check ${lastMissStartedAt - since} ms after did not see it`);
  }
}

/** A real server process, as production runs one. */
export class ServerProcess {
  private text = '';
  readonly exited: Promise<[number | null, NodeJS.Signals | null]>;

  private constructor(
    readonly child: ChildProcess,
    readonly port: number,
  ) {
    child.stdout?.on('data', (chunk: Buffer) => (this.text += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (this.text += chunk.toString()));
    this.exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  }

  /**
   * Starts the service with `env` over the test's environment. `built`: the
   * compiled dist/src/main.js (`npm start`; start-up is quicker, for suites
   * that start many); otherwise src/main.ts through ts-node, so a test needs
   * no build first. Background task checks are off unless `env` turns them
   * on: they would add upstream calls to what suites count.
   */
  static start(env: Record<string, string>, options: { built?: boolean } = {}): ServerProcess {
    const entry = options.built ? ['dist/src/main.js'] : ['-r', 'ts-node/register/transpile-only', 'src/main.ts'];
    const child = spawn(process.execPath, entry, { env: { ...process.env, VIDEO_STATUS_POLL_MS: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    return new ServerProcess(child, Number(env.PORT));
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  output(): string {
    return this.text;
  }

  /** The process's JSON log lines. */
  logLines(): Record<string, unknown>[] {
    return this.text
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  async ready(timeoutMs = 60000): Promise<void> {
    let exited = false;
    void this.exited.then(() => (exited = true));
    await waitFor(() => exited || this.text.includes('listening on'), timeoutMs, `the server on port ${this.port}`);
    if (exited) throw new Error(`the server on port ${this.port} exited:\n${this.text}`);
  }

  /** Stops it (SIGTERM: clean shutdown; SIGKILL: a crash) and waits for it to be gone. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    await this.exited;
  }
}

export interface SeededUser {
  id: string;
  token: string;
  auth: { Authorization: string };
}

/** Direct access to a server's database from the test process, for seeding and for reading what was persisted. */
export class TestDatabase {
  private constructor(readonly dataSource: DataSource) {}

  /** Opens (and migrates, as a starting server would) the database at `url`. */
  static async open(url: string): Promise<TestDatabase> {
    const dataSource = new DataSource(buildDataSourceOptions(parseDatabaseUrl(url)));
    await dataSource.initialize();
    return new TestDatabase(dataSource);
  }

  /** A user with a token and `credits` granted (ledger `grant`), as the CLI would make them. */
  async seedUser(credits: number, options: { admin?: boolean } = {}): Promise<SeededUser> {
    const id = randomUUID();
    const token = generateToken();
    const now = new Date();
    await this.dataSource.transaction(async (manager) => {
      await manager.insert(UserEntity, {
        id,
        email: `${id}@example.com`,
        name: 'Process test user',
        isAdmin: options.admin ?? false,
        credits,
        webhookSecret: null,
        createdAt: now,
      });
      await manager.insert(AccessTokenEntity, { id: randomUUID(), userId: id, name: 'test', tokenHash: hashToken(token), createdAt: now, revokedAt: null });
      await manager.insert(CreditLedgerEntryEntity, { userId: id, kind: 'grant', amount: credits, balanceAfter: credits, taskId: null, createdAt: now });
    });
    return { id, token, auth: { Authorization: `Bearer ${token}` } };
  }

  async balance(userId: string): Promise<number> {
    return (await this.dataSource.manager.findOneByOrFail(UserEntity, { id: userId })).credits;
  }

  /** The user's ledger, oldest first. */
  ledger(userId: string): Promise<CreditLedgerEntryEntity[]> {
    return this.dataSource.manager.find(CreditLedgerEntryEntity, { where: { userId }, order: { id: 'ASC' } });
  }

  close(): Promise<void> {
    return this.dataSource.destroy();
  }
}
