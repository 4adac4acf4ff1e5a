import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const MIGRATIONS_DIR = join(__dirname, 'migrations');
const MIGRATION_FILE = /^\d{13}-.+\.ts$/;
const files = readdirSync(MIGRATIONS_DIR).filter((file) => MIGRATION_FILE.test(file));
const timestampOf = (file: string) => file.slice(0, 13);
const newestOf = (names: string[]) => names.map(timestampOf).sort().at(-1) ?? '';

/** The migration files git lists with `args` (names only). */
function gitMigrations(...args: string[]): string[] {
  const output = execFileSync('git', [...args, '--', 'src/database/migrations'], { cwd: ROOT, encoding: 'utf8' });
  return output
    .split('\n')
    .map((path) => basename(path.trim()))
    .filter((file) => MIGRATION_FILE.test(file));
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
  // would run after it on those, and before it on a fresh one (docs/extending.md §2).
  const inGitCheckout = existsSync(join(ROOT, '.git')) ? it : it.skip;
  inGitCheckout('a new migration comes after every one before it: uncommitted ones, and the last one committed', () => {
    const committed = gitMigrations('ls-files');
    const uncommitted = files.filter((file) => !committed.includes(file));
    for (const file of uncommitted) expect([file, timestampOf(file) > newestOf(committed)]).toEqual([file, true]);
    const lastAdded = gitMigrations('log', '-1', '--diff-filter=A', '--name-only', '--format=');
    expect(newestOf(lastAdded)).toBe(newestOf(committed));
  });
});
