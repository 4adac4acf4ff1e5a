import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, ServerProcess, TestDatabase, waitFor } from './support/server-process';
import { makeZip } from './support/zip';

describe('The server process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'registry-process-'));
  const aFile = join(dir, 'a-file');
  writeFileSync(aFile, '');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('logs JSON lines with request id, method, path, client address, status and duration, never a token; stops cleanly on SIGTERM', async () => {
    const port = await freePort();
    const database = join(dir, 'db.sqlite');
    const server = ServerProcess.start({ PORT: String(port), DATABASE_URL: `sqlite:${database}`, LOG_LEVEL: 'info', TRUST_PROXY: 'loopback' });
    try {
      await server.ready();
      const secret = 'nrt_this-token-must-never-be-logged';
      const reply = await fetch(`http://127.0.0.1:${port}/users/me?page=1`, {
        // This test is the trusted proxy (loopback): the logged client is the one it names.
        headers: { Authorization: `Bearer ${secret}`, 'X-Request-Id': 'process-test-1', 'X-Forwarded-For': '203.0.113.7' },
      });
      expect(reply.status).toBe(401);
      await waitFor(() => server.output().includes('process-test-1'));

      const line = server
        .output()
        .split('\n')
        .filter((text) => text.includes('process-test-1'))
        .map((text) => JSON.parse(text) as Record<string, unknown>)
        .find((entry) => entry.msg === 'request completed');
      expect(line).toMatchObject({
        requestId: 'process-test-1',
        req: { method: 'GET', path: '/users/me', remoteAddress: '203.0.113.7' },
        res: { status: 401 },
        durationMs: expect.any(Number),
      });
      expect(server.output()).not.toContain(secret);
      // Swagger's routes, mounted ahead of Nest's, are logged too.
      expect((await fetch(`http://127.0.0.1:${port}/docs-json`, { headers: { 'X-Request-Id': 'process-test-docs' } })).status).toBe(200);
      await waitFor(() => server.output().includes('process-test-docs'));
      const docsLine = server
        .output()
        .split('\n')
        .find((text) => text.includes('process-test-docs'));
      expect(JSON.parse(docsLine ?? '{}')).toMatchObject({ req: { method: 'GET', path: '/docs-json' }, res: { status: 200 } });
    } finally {
      server.child.kill('SIGTERM');
    }
    // Nest closes the app (HTTP server, then the database) and re-raises the signal.
    const [, signal] = await server.exited;
    expect(signal).toBe('SIGTERM');
    expect(existsSync(database)).toBe(true);
    // SQLite removes its write-ahead log only when the database is closed cleanly.
    expect(existsSync(`${database}-wal`)).toBe(false);
  });

  it.each([
    ['PORT', 'not-a-port'],
    // Read by its module as the application starts, not before it.
    ['CALLBACK_ALLOW_PRIVATE', 'maybe'],
    // Checked by writing in it: a store that cannot be written would fail the first upload.
    ['STORAGE_DIR', aFile],
  ])('refuses to start on a bad %s, naming it, in JSON lines as every log', async (variable, value) => {
    const server = ServerProcess.start({ [variable]: value, DATABASE_URL: `sqlite:${join(dir, 'bad.sqlite')}` });
    const [code] = await server.exited;
    expect(code).toBe(1);
    const lines = server
      .output()
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(lines.find((line) => line.level === 60)?.msg).toContain(variable);
  });

  it('refuses to start when the database cannot be reached, naming DATABASE_URL', async () => {
    const closedPort = await freePort();
    const server = ServerProcess.start({ DATABASE_URL: `postgres://root@127.0.0.1:${closedPort}/registry` });
    const [code] = await server.exited;
    expect(code).toBe(1);
    const fatal = server.logLines().find((line) => line.level === 60);
    expect(fatal?.msg).toMatch(/^the database \(DATABASE_URL\) cannot be reached: .*ECONNREFUSED/);
  });

  it('PORT=0 listens on a port the system picks, and logs that port', async () => {
    const server = ServerProcess.start({ PORT: '0', DATABASE_URL: `sqlite:${join(dir, 'any-port.sqlite')}`, LOG_LEVEL: 'info' });
    try {
      await server.ready();
      const port = Number(/listening on http:\/\/localhost:(\d+)/.exec(server.output())?.[1]);
      expect(port).toBeGreaterThan(0);
      expect((await fetch(`http://127.0.0.1:${port}/health/ready`)).status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  it('an archive download with metrics on prints no listener-leak warning', async () => {
    const databaseUrl = `sqlite:${join(dir, 'downloads.sqlite')}`;
    const database = await TestDatabase.open(databaseUrl);
    const owner = await database.seedUser(0).finally(() => database.close());
    const port = await freePort();
    const server = ServerProcess.start({ PORT: String(port), DATABASE_URL: databaseUrl, STORAGE_DIR: join(dir, 'archives'), METRICS_TOKEN: 'metrics-token-0123456789abcdef' });
    try {
      await server.ready();
      const send = (method: string, path: string, body?: object | Buffer) =>
        fetch(`${server.url}${path}`, {
          method,
          headers: { ...owner.auth, 'Content-Type': Buffer.isBuffer(body) ? 'application/zip' : 'application/json' },
          body: Buffer.isBuffer(body) ? body : body && JSON.stringify(body),
        });
      expect((await send('POST', '/publishers', { id: 'process-pub', name: 'P' })).status).toBe(201);
      expect((await send('POST', '/publishers/process-pub/nodes', { id: 'process-node', name: 'N' })).status).toBe(201);
      expect((await send('POST', '/publishers/process-pub/nodes/process-node/versions', { version: '1.0.0' })).status).toBe(201);
      const archive = makeZip({ '__init__.py': '# a clean pack\n' });
      expect((await send('PUT', '/publishers/process-pub/nodes/process-node/versions/1.0.0/archive', archive)).status).toBe(200);
      let install: Response | undefined;
      await waitFor(async () => (install = await fetch(`${server.url}/nodes/process-node/install`)).status === 200, 30000, 'the archive reviewed');
      const { downloadUrl } = (await install!.json()) as { downloadUrl: string };
      expect(Buffer.from(await (await fetch(downloadUrl.replace(/^http:\/\/[^/]+/, server.url))).arrayBuffer())).toEqual(archive);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(server.output()).not.toContain('MaxListenersExceededWarning');
    } finally {
      await server.stop();
    }
  });
});
