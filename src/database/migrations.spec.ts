import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const MIGRATIONS_DIR = join(__dirname, 'migrations');
const MIGRATION_FILE = /^\d{13}-.+\.ts$/;
const files = readdirSync(MIGRATIONS_DIR).filter((file) => MIGRATION_FILE.test(file));
const timestampOf = (file: string) => file.slice(0, 13);
const newestOf = (names: string[]) => names.map(timestampOf).sort().at(-1) ?? '';

/** The migration files git lists with `args` (names only); undefined where git cannot tell (not a checkout, a repository git refuses). */
function gitMigrations(...args: string[]): string[] | undefined {
  try {
    const output = execFileSync('git', [...args, '--', 'src/database/migrations'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return output
      .split('\n')
      .map((path) => basename(path.trim()))
      .filter((file) => MIGRATION_FILE.test(file));
  } catch {
    return undefined;
  }
}

/** Whether this is a full clone: in a shallow one, the oldest commit held shows every file as added. */
function fullHistory(): boolean {
  try {
    return execFileSync('git', ['rev-parse', '--is-shallow-repository'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() === 'false';
  } catch {
    return false;
  }
}

describe('migrations', () => {
  it('each has its own timestamp, and a class and a name after it', () => {
    expect(new Set(files.map(timestampOf)).size).toBe(files.length);
    for (const file of files) {
      const source = readFileSync(join(MIGRATIONS_DIR, file), 'utf8');
      const className = new RegExp(`export class (\\w+${timestampOf(file)}) implements MigrationInterface`).exec(source)?.[1];
      expect(className).toBeDefined();
      expect(source).toContain(`name = '${className}';`);
    }
  });

  // TypeORM runs pending migrations in timestamp order: one dated before a migration that databases already ran
  // would run after it on those, and before it on a fresh one (docs/extending.md §2). Which one is new, only git
  // knows: one not committed yet (where a change is tested before it is committed), or the last one committed.
  // HEAD's tree, not the index: a migration staged for a commit is new too.
  const committed = gitMigrations('ls-tree', '-r', '--name-only', 'HEAD');
  const inGitCheckout = committed ? it : it.skip;
  inGitCheckout('a migration not committed yet comes after every committed one', () => {
    for (const file of files.filter((name) => !committed?.includes(name))) {
      expect([file, timestampOf(file) > newestOf(committed ?? [])]).toEqual([file, true]);
    }
  });

  const withFullHistory = committed && fullHistory() ? it : it.skip;
  withFullHistory('the migration committed last is the newest', () => {
    expect(newestOf(gitMigrations('log', '-1', '--diff-filter=A', '--name-only', '--format=') ?? [])).toBe(newestOf(committed ?? []));
  });
});
