import { readFileSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { ArchivesEnvironment } from '../src/archives/archives.config';
import { validateEnvironment, validateVariables } from '../src/config/environment';

/** The last stage of the Dockerfile (the image that runs): its ENV variables, VOLUMEs, USER and WORKDIR. */
function runtimeStage(): { env: Record<string, string>; volumes: string[]; runs: string[]; user?: string; workdir?: string } {
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
  return { env, volumes, runs: instruction('RUN'), user: instruction('USER').at(-1), workdir: instruction('WORKDIR').at(-1) };
}

/**
 * Read, not built (no Docker engine here): the image runs as a non-root user
 * who may write only its volume, so everything the service writes with the
 * image's configuration (the SQLite file, the archives and video results
 * under STORAGE_DIR) must be under it. STORAGE_DIR once defaulted to
 * ./data/archives, under the root-owned /app: the first publish failed.
 */
describe('The Dockerfile', () => {
  const { env, volumes, runs, user, workdir } = runtimeStage();
  const underVolume = (path: string) => volumes.some((volume) => !relative(volume, path).startsWith('..') && !isAbsolute(relative(volume, path)));
  const resolved = (path: string) => (isAbsolute(path) ? path : join(workdir ?? '/', path));
  const storage = resolved(validateVariables(ArchivesEnvironment, env).STORAGE_DIR);

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

  it('creates the storage directory owned by that user, so a named volume mounted on it (docker-compose.yml) is writable', () => {
    expect(runs).toContainEqual(`mkdir -p ${storage} && chown -R ${user}:${user} ${volumes[0]}`);
    expect(readFileSync(join(__dirname, '..', 'docker-compose.yml'), 'utf8')).toContain(`STORAGE_DIR: ${storage}`);
  });
});
