import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const MIGRATIONS_DIR = join(__dirname, 'migrations');
const files = readdirSync(MIGRATIONS_DIR).filter((file) => /^\d{13}-.+\.ts$/.test(file));
const timestampOf = (file: string) => file.slice(0, 13);

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

  it('the extension guide names the newest timestamp, which a new migration must come after', () => {
    const newest = files.map(timestampOf).sort().at(-1);
    const guide = readFileSync(join(__dirname, '..', '..', 'docs', 'extending.md'), 'utf8');
    expect(guide).toContain(`**The timestamp must be later than \`${newest}\`**`);
  });
});
