import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { NodeVersionEntity } from '../src/nodes/entities/node-version.entity';
import { CreditsService } from '../src/users/credits.service';
import { UserEntity } from '../src/users/entities/user.entity';
import { FakeUpstream } from './support/fake-upstream';
import { addVersions, createPublisherWithNode } from './support/registry-fixtures';
import { TestApp } from './support/test-app';

const ROOT = join(__dirname, '..');
const CLIENT = join(__dirname, 'client');
const GENERATED = join(CLIENT, 'generated');

/** Runs a package's script synchronously (code generation and the compiler talk to no server). */
function runTool(script: string, args: string[]): string {
  try {
    return execFileSync(process.execPath, [join(ROOT, 'node_modules', script), ...args], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    // tsc reports type errors on stdout, which the thrown error's message leaves out.
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`${script} failed:\n${stdout}${stderr}`);
  }
}

/**
 * Proof that the published document serves real clients: TypeScript types
 * are generated from the running app's /docs-json (openapi-typescript), the
 * client in test/client drives all four operations with openapi-fetch, and it
 * compiles under `tsc --strict` (including checks that wrong calls do not, and
 * that the Node, NodeVersion and Publisher replies fit the frontend's types
 * of the public registry, where no field is nullable).
 */
describe('A generated TypeScript client (openapi-typescript + openapi-fetch)', () => {
  let t: TestApp;
  let upstream: FakeUpstream;

  beforeAll(async () => {
    upstream = await FakeUpstream.start();
    t = await TestApp.start({ VIDEO_UPSTREAM_URL: upstream.url, VIDEO_UPSTREAM_API_KEY: upstream.apiKey });
    rmSync(GENERATED, { recursive: true, force: true });
    mkdirSync(GENERATED, { recursive: true });
  });
  afterAll(async () => {
    await t?.close();
    await upstream?.close();
  });

  it('generates types from /docs-json, compiles the client under tsc --strict, and runs all four operations', async () => {
    const document = (await t.http.get('/docs-json').expect(200)).text;
    writeFileSync(join(GENERATED, 'openapi.json'), document);
    runTool('openapi-typescript/bin/cli.js', [join(GENERATED, 'openapi.json'), '--output', join(GENERATED, 'schema.d.ts')]);

    // Throws (failing the test with the compiler's messages) on any type error.
    runTool('typescript/bin/tsc', [
      ...['--strict', '--noUnusedLocals', '--noImplicitReturns', '--skipLibCheck', '--types', 'node'],
      ...['--module', 'node16', '--moduleResolution', 'node16', '--target', 'es2022'],
      ...['--rootDir', CLIENT, '--outDir', join(GENERATED, 'out'), join(CLIENT, 'typed-client.ts')],
    ]);

    const f = await createPublisherWithNode(t);
    await addVersions(t, f, '1.0.0');
    await t.app.get(CreditsService).grant(f.owner.id, 100);
    const baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;

    // Asynchronously: the app under test answers from this same process.
    const { stdout } = await promisify(execFile)(process.execPath, [join(GENERATED, 'out', 'typed-client.js'), baseUrl, f.owner.token, f.publisherId, f.nodeId, '1.0.0']);
    const seen = JSON.parse(stdout) as Record<string, Record<string, unknown>>;

    expect(seen.node).toEqual({ status: 200, id: f.nodeId, description: 'updated by a generated client', tags: ['typed'] });
    expect(seen.version).toEqual({ status: 200, changelog: 'written by a generated client', deprecated: true });
    expect(seen.review).toEqual({ status: 200, rating: 5 });
    expect(seen.task).toEqual({ status: 200, taskId: expect.any(String), credits: expect.any(Number) });
    expect(seen.missing).toEqual({ status: 404, message: expect.stringContaining('no-such-node') });
    expect(seen.listed).toEqual({ status: 200, page: 1, limit: 10 });
    expect(seen.token).toEqual({ status: 201, created: true });

    // What the client did is what the service stored and the upstream received.
    const version = await t.dataSource.getRepository(NodeVersionEntity).findOneByOrFail({ nodeId: f.nodeId, version: '1.0.0' });
    expect(version).toEqual(expect.objectContaining({ changelog: 'written by a generated client', deprecated: true }));
    expect(upstream.requests.map((request) => request.body)).toEqual([expect.objectContaining({ prompt: 'a typed lighthouse', duration: 2 })]);
    const owner = await t.dataSource.getRepository(UserEntity).findOneByOrFail({ id: f.owner.id });
    expect(owner.credits).toBe(100 - (seen.task.credits as number));
  });
});
