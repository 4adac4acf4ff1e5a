import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { TestApp, unique } from './support/test-app';

const run = promisify(execFile);

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

// Each command is a process that compiles src/cli.ts's imports (about 4 s, more on a busy machine), and a test runs up
// to seven of them: the default 60 s per test is too tight.
jest.setTimeout(180_000);

describe('Operator CLI (npm run cli -- <command>)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'registry-cli-'));
  const sqlitePath = join(dir, 'cli.db');
  const databaseUrl = process.env.TEST_DATABASE_URL ?? `sqlite:${sqlitePath}`;
  const storageDir = join(dir, 'archives');

  /** Runs src/cli.ts the way `npm run cli` runs the built file, against the test database. */
  async function cli(...args: string[]): Promise<CliResult> {
    return cliWith({}, ...args);
  }

  /** cli with `env` over the test's environment. */
  async function cliWith(env: Record<string, string>, ...args: string[]): Promise<CliResult> {
    try {
      const { stdout, stderr } = await run(process.execPath, ['-r', 'ts-node/register/transpile-only', 'src/cli.ts', ...args], {
        env: { ...process.env, DATABASE_URL: databaseUrl, STORAGE_DIR: storageDir, PORT: '3000', ...env },
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  }

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('creates users, tokens and credits that the server accepts', async () => {
    const email = `${unique('cli')}@example.com`;
    const user = await cli('user', 'create', '--email', email, '--name', 'Cli User', '--admin');
    expect(user.code).toBe(0);
    const created = JSON.parse(user.stdout);
    expect(created).toEqual({ id: expect.any(String), email, name: 'Cli User', is_admin: true });

    const token = await cli('token', 'create', '--user', created.id, '--name', 'laptop');
    expect(token.code).toBe(0);
    const issued = JSON.parse(token.stdout);
    expect(issued).toEqual({ id: expect.any(String), token: expect.stringMatching(/^nrt_/), name: 'laptop' });

    // Like the HTTP reply, a token without a label has no name (never null).
    const unnamed = await cli('token', 'create', '--user', created.id);
    expect(JSON.parse(unnamed.stdout)).toEqual({ id: expect.any(String), token: expect.stringMatching(/^nrt_/) });

    const credits = await cli('credits', 'grant', '--user', created.id, '--amount', '250');
    expect(JSON.parse(credits.stdout)).toEqual({ user_id: created.id, balance: 250 });
    // A correction, written as a shell user would: the negative number is the option's value.
    const corrected = await cli('credits', 'grant', '--user', created.id, '--amount', '-50');
    expect(JSON.parse(corrected.stdout)).toEqual({ user_id: created.id, balance: 200 });

    const t = await TestApp.start({ DATABASE_URL: databaseUrl });
    try {
      const me = await t.http.get('/users/me').set('Authorization', `Bearer ${issued.token}`).expect(200);
      expect(me.body).toMatchObject({ id: created.id, is_admin: true, credits: 200 });
    } finally {
      await t.close();
    }
  });

  it('prints nothing but the JSON object when run through `npm run cli`', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl };
    delete env.npm_config_loglevel; // as a user's shell has it: the project's .npmrc applies
    const { stdout } = await run('npm', ['run', 'cli', '--', 'user', 'create', '--email', `${unique('npm')}@example.com`, '--name', 'Via npm'], { env });
    expect(JSON.parse(stdout)).toMatchObject({ name: 'Via npm', is_admin: false });
  });

  it('seeds a working demo with `demo`', async () => {
    const demo = await cli('demo');
    expect(demo.code).toBe(0);
    const seeded = JSON.parse(demo.stdout);
    expect(seeded).toMatchObject({ token: expect.stringMatching(/^nrt_/), publisher_id: 'demo-publisher', node_id: 'demo-upscaler' });
    expect(seeded.examples[0]).toBe('curl http://localhost:3000/nodes/demo-upscaler');
    // A second run reuses the demo data and issues a fresh token; its curls go to PUBLIC_BASE_URL when set.
    const again = await cliWith({ PUBLIC_BASE_URL: 'https://registry.example.com/api/' }, 'demo');
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).examples[0]).toBe('curl https://registry.example.com/api/nodes/demo-upscaler');

    const t = await TestApp.start({ DATABASE_URL: databaseUrl, STORAGE_DIR: storageDir });
    try {
      const auth = { Authorization: `Bearer ${seeded.token}` };
      const node = await t.http.get('/nodes/demo-upscaler').expect(200);
      expect(node.body.latest_version.version).toBe('1.10.0');
      // Installable right after the demo: its versions were published with archives.
      for (const [query, version] of [['', '1.10.0'], ['?version=1.9.0', '1.9.0']]) {
        const install = await t.http.get(`/nodes/demo-upscaler/install${query}`).expect(200);
        // On the origin the request reached, not the CLI's (which knew no address when it stored the archives).
        const origin = await t.listen();
        expect(install.body).toMatchObject({ version, downloadUrl: expect.stringMatching(new RegExp(`^${origin}/archives/[0-9a-f]{64}\\.zip$`)) });
        const archive = await t.http.get(new URL(install.body.downloadUrl).pathname).responseType('blob').expect(200);
        expect((archive.body as Buffer).subarray(0, 4)).toEqual(Buffer.from('PK\x03\x04', 'latin1'));
      }
      // Every frontend route shows something real (docs/api-rules.md §9): classes from the archives, platforms, ranges.
      const classes = await t.http.get('/nodes/demo-upscaler/versions/1.10.0/comfy-nodes').expect(200);
      expect(classes.body).toEqual({
        comfy_nodes: [
          { comfy_node_name: 'DemoUpscale4x', description: 'Upscale 4x (Demo)', category: 'image/upscaling', function: 'run', return_types: '["IMAGE"]' },
          { comfy_node_name: 'DemoUpscaleModelLoader', description: 'Load Upscale Model (Demo)', category: 'loaders', function: 'run', return_types: '["UPSCALE_MODEL"]' },
        ],
        totalNumberOfPages: 1,
      });
      expect((await t.http.get('/comfy-nodes/DemoDepthEstimate/node').expect(200)).body.id).toBe('demo-depth-maps');
      const older = await t.http.get('/nodes?node_id=demo-upscaler&comfyui_version=v0.3.30&form_factor=git-linux').expect(200);
      expect(older.body.nodes[0].latest_version.version).toBe('1.9.0');
      const demoIds = 'node_id=demo-upscaler&node_id=demo-metal-blur&node_id=demo-depth-maps';
      const ids = (res: { body: { nodes: Array<{ id: string }> } }) => res.body.nodes.map((n) => n.id).sort();
      expect(ids(await t.http.get(`/nodes?supported_os=macos&${demoIds}`).expect(200))).toEqual(['demo-depth-maps', 'demo-metal-blur']);
      expect(ids(await t.http.get(`/nodes?supported_os=macos&supported_accelerator=metal&${demoIds}`).expect(200))).toEqual(['demo-metal-blur']);
      expect((await t.http.get('/nodes/search?search=upscalr').expect(200)).body.nodes.map((n: { id: string }) => n.id)).toContain('demo-upscaler');
      const packs = (await t.http.get('/publishers/demo-publisher/nodes').expect(200)).body as Array<{ id: string }>;
      expect(packs.map((n) => n.id).sort()).toEqual(['demo-depth-maps', 'demo-metal-blur', 'demo-remote-loader', 'demo-upscaler']);
      // The fourth pack runs base64-decoded code: right after the demo, its checks hold it for an admin (docs/api-rules.md §10).
      const reviewUrl = '/publishers/demo-publisher/nodes/demo-remote-loader/versions/0.1.0/review';
      expect(seeded.examples.join('\n')).toContain(reviewUrl);
      const held = await t.http.get(reviewUrl).set(auth).expect(200);
      expect(held.body).toMatchObject({ status: 'NodeVersionStatusFlagged', status_reason: expect.stringContaining('obfuscated-exec') });
      expect(held.body.findings.map((finding: { code: string; severity: string }) => [finding.code, finding.severity])).toEqual([['obfuscated-exec', 'review']]);
      expect((await t.http.get('/nodes/demo-remote-loader/install').expect(404)).body.message).toContain('no installable version');
      expect((await t.http.get('/nodes/demo-remote-loader/install?version=0.1.0').expect(404)).body.message).toContain('NodeVersionStatusFlagged');
      await t.http.put('/publishers/demo-publisher/nodes/demo-upscaler').set(auth).send({ description: 'edited' }).expect(200);
      await t.http.post('/nodes/demo-upscaler/reviews?star=5').set(auth).expect(200);
    } finally {
      await t.close();
    }
  });

  /**
   * Another process (as the CLI is) renames a user in a write transaction on the same SQLite file and
   * holds it for `holdMs` before committing. Resolves once it holds the write lock.
   */
  async function renameInAnotherProcess(userId: string, name: string, holdMs: number): Promise<{ committed: Promise<unknown> }> {
    const script = `
      const db = new (require('better-sqlite3'))(process.env.DB_PATH, { timeout: 5000 });
      db.exec('BEGIN IMMEDIATE');
      db.prepare('UPDATE users SET name = ? WHERE id = ?').run(process.env.NAME, process.env.USER_ID);
      process.stdout.write('locked\\n');
      setTimeout(() => { db.exec('COMMIT'); db.close(); }, Number(process.env.HOLD_MS));`;
    const writer = spawn(process.execPath, ['-e', script], {
      env: { ...process.env, DB_PATH: sqlitePath, USER_ID: userId, NAME: name, HOLD_MS: String(holdMs) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const committed = once(writer, 'exit');
    await once(writer.stdout, 'data');
    return { committed };
  }

  (process.env.TEST_DATABASE_URL ? it.skip : it)('a server write meeting another process’s write to the SQLite file waits for it instead of failing', async () => {
    const t = await TestApp.start({ DATABASE_URL: databaseUrl });
    try {
      const admin = await t.createUser({ admin: true });
      const other = await t.createUser();
      const target = await t.createUser();
      // Held well past the time the request takes to reach the database, even on a busy machine.
      const writer = await renameInAnotherProcess(other.id, 'Renamed by the CLI', 1500);
      // A grant reads the balance, then writes it. Begun as a reader (SQLite's deferred BEGIN), it failed
      // at its first write once the other process had committed (SQLITE_BUSY_SNAPSHOT: a 500, no busy wait).
      const granted = await t.http.post(`/admin/users/${target.id}/credits`).set(admin.auth).send({ amount: 7 }).expect(200);
      expect(granted.body).toEqual({ user_id: target.id, balance: 7 });
      expect(await writer.committed).toEqual([0, null]);
      const names = await t.dataSource.query('SELECT name FROM users WHERE id IN (?, ?) ORDER BY name', [other.id, target.id]);
      expect(names).toEqual([{ name: 'Renamed by the CLI' }, { name: 'Test User' }]);
    } finally {
      await t.close();
    }
  });

  it('prints its usage on stdout for --help, and succeeds', async () => {
    for (const help of ['--help', '-h']) {
      const reply = await cli(help);
      expect(reply).toMatchObject({ code: 0, stderr: '' });
      expect(reply.stdout).toMatch(/^usage: npm run cli -- <command>\n {2}user create/);
    }
  });

  it('fails with a message on stderr and a non-zero exit', async () => {
    const unknown = await cli('launch', 'rockets');
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toContain("unknown command 'launch rockets'");

    const missing = await cli('user', 'create', '--email', 'x@example.com');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--name is required');

    const invalid = await cli('user', 'create', '--email', 'nope', '--name', 'x');
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain('email must be an email');

    const noUser = await cli('credits', 'grant', '--user', 'missing', '--amount', '5');
    expect(noUser.code).toBe(1);
    expect(noUser.stderr).toContain("user 'missing' not found");

    const badAmount = await cli('credits', 'grant', '--user', 'missing', '--amount', 'lots');
    expect(badAmount.code).toBe(2);

    // Another command's option is refused, not ignored; parseArgs's own refusals are usage errors too.
    const foreign = await cli('token', 'create', '--user', 'missing', '--email', 'x@example.com');
    expect(foreign).toMatchObject({ code: 2, stdout: '' });
    expect(foreign.stderr).toContain("--email is not an option of 'token create'");
    const unknownOption = await cli('token', 'create', '--colour', 'red');
    expect(unknownOption.code).toBe(2);
    expect(unknownOption.stderr).toContain('usage: npm run cli');
  });
});
