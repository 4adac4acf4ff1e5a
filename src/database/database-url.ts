import { resolve } from 'node:path';

export type DatabaseTarget =
  | { type: 'sqlite'; path: string }
  | { type: 'postgres'; url: string };

export const DEFAULT_SQLITE_PATH = './data/registry.db';

/** Turns DATABASE_URL into a database target; throws with a readable reason when it is not one we support. */
export function parseDatabaseUrl(url: string | undefined): DatabaseTarget {
  const value = url?.trim();
  if (!value) {
    return { type: 'sqlite', path: resolve(DEFAULT_SQLITE_PATH) };
  }
  if (value === 'sqlite::memory:') {
    return { type: 'sqlite', path: ':memory:' };
  }
  if (value.startsWith('sqlite:')) {
    const path = value.slice('sqlite:'.length).replace(/^\/\//, '');
    if (!path) throw new Error('sqlite: needs a file path, e.g. sqlite:./data/registry.db');
    return { type: 'sqlite', path: resolve(path) };
  }
  if (/^postgres(ql)?:\/\//.test(value)) {
    try {
      new URL(value);
    } catch {
      throw new Error('not a valid postgres:// URL');
    }
    return { type: 'postgres', url: value };
  }
  throw new Error("expected 'sqlite:<path>', 'sqlite::memory:' or 'postgres://...'");
}
