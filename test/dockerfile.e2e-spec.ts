import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { ArchivesEnvironment } from '../src/archives/archives.config';
import { validateEnvironment, validateVariables } from '../src/config/environment';

/** The last stage of the Dockerfile (the image that runs): its ENV variables, VOLUMEs, USER and WORKDIR. */
function runtimeStage(): { env: Record<string, string>; volumes: string[]; runs: string[]; copies: string[]; user?: string; workdir?: string } {
  // Continuation lines joined, comments dropped.
  const lines = readFileSync(join(__dirname, '..', 'Dockerfile'), 'utf8')
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .filter((line) => line.trim() && !line.trim().startsWith('#'));
  const stage = lines.slice(lines.map((line) => line.startsWith('FROM ')).lastIndexOf(true));
  const instruction = (name: string) => stage.filter((line) => line.startsWith(`${name} `)).map((line) => line.slice(name.length + 1).trim());
  const env = Object.fromEntries(
    instruction('ENV').flatMap((pairs) => [...pairs.matchAll(/(\w+)=(\S+)/g)].map(([, name, value]) => [name, value])),
  );
  const volumes = instruction('VOLUME').flatMap((value) => JSON.parse(value) as string[]);
  return { env, volumes, runs: instruction('RUN'), copies: instruction('COPY'), user: instruction('USER').at(-1), workdir: instruction('WORKDIR').at(-1) };
}

/**
 * Read, not built (no Docker engine here): the image runs as a non-root user
 * who may write only its volume, so everything the service writes with the
 * image's configuration (the SQLite file, the archives and video results
 * under STORAGE_DIR) must be under it. STORAGE_DIR once defaulted to
 * ./data/archives, under the root-owned /app: the first publish failed.
 */
describe('The Dockerfile', () => {
  const { env, volumes, runs, copies, user, workdir } = runtimeStage();
  const underVolume = (path: string) => volumes.some((volume) => !relative(volume, path).startsWith('..') && !isAbsolute(relative(volume, path)));
  const resolved = (path: string) => (isAbsolute(path) ? path : join(workdir ?? '/', path));
  const storage = resolved(validateVariables(ArchivesEnvironment, env).STORAGE_DIR);

  it('builds better-sqlite3 from source: nothing downloads a binary at install', () => {
    const dockerfile = readFileSync(join(__dirname, '..', 'Dockerfile'), 'utf8');
    expect(dockerfile.indexOf('ENV npm_config_build_from_source=better-sqlite3')).toBeGreaterThan(-1);
    expect(dockerfile.indexOf('ENV npm_config_build_from_source=better-sqlite3')).toBeLessThan(dockerfile.indexOf('RUN npm ci'));
  });

  it('runs as a non-root user with a volume', () => {
    expect(user).toBe('node');
    expect(volumes).toEqual(['/data']);
  });

  it('keeps the SQLite database and the stored files under the volume', () => {
    const database = validateEnvironment(env).database;
    const written = {
      database: database.type === 'sqlite' ? resolved(database.path) : `not SQLite: ${database.type}`,
      storage,
    };
    expect(Object.entries(written).filter(([, path]) => !underVolume(path))).toEqual([]);
  });

  it('runs the CLI as the contract says, `npm run cli -- <command>`, printing only the command’s output', () => {
    // The image's /app as its COPY lines make it, from this checkout (the build stage's /app is this checkout
    // built); a stand-in for the built CLI, so no build is needed: what is checked is the npm script's way to it.
    const app = mkdtempSync(join(tmpdir(), 'registry-image-'));
    try {
      for (const copy of copies) {
        const [source, destination] = copy.replace(/^--from=build \/app\//, '').split(/\s+/);
        if (source === 'node_modules' || source === 'dist') continue;
        const target = join(app, destination.endsWith('/') ? join(destination, source.split('/').at(-1) ?? '') : destination === './' ? source : destination);
        mkdirSync(dirname(target), { recursive: true });
        cpSync(join(__dirname, '..', source), target, { recursive: true });
      }
      mkdirSync(join(app, 'dist', 'src'), { recursive: true });
      writeFileSync(join(app, 'dist', 'src', 'cli.js'), "process.stdout.write('cli ' + process.argv.slice(2).join(' ') + '\\n');\n");
      // As `docker exec` runs it: without the npm_config_* variables an `npm test` running this suite exports
      // (they would override the image's .npmrc).
      const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')));
      const stdout = execFileSync('npm', ['run', 'cli', '--', 'token', 'create'], { cwd: app, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      expect(stdout).toBe('cli token create\n');
    } finally {
      rmSync(app, { recursive: true, force: true });
    }
  });

  it('creates the storage directory owned by that user, so a named volume mounted on it (docker-compose.yml) is writable', () => {
    expect(runs).toContainEqual(`mkdir -p ${storage} && chown -R ${user}:${user} ${volumes[0]}`);
    expect(readFileSync(join(__dirname, '..', 'docker-compose.yml'), 'utf8')).toContain(`STORAGE_DIR: ${storage}`);
  });
});
