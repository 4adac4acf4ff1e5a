import { resolve } from 'node:path';
import { DEFAULT_SQLITE_PATH, parseDatabaseUrl } from './database-url';

describe('parseDatabaseUrl', () => {
  it('defaults to the SQLite file under ./data', () => {
    expect(parseDatabaseUrl(undefined)).toEqual({ type: 'sqlite', path: resolve(DEFAULT_SQLITE_PATH) });
    expect(parseDatabaseUrl('  ')).toEqual({ type: 'sqlite', path: resolve(DEFAULT_SQLITE_PATH) });
  });

  it('understands sqlite paths, memory and postgres urls', () => {
    expect(parseDatabaseUrl('sqlite::memory:')).toEqual({ type: 'sqlite', path: ':memory:' });
    expect(parseDatabaseUrl('sqlite:/tmp/x.db')).toEqual({ type: 'sqlite', path: '/tmp/x.db' });
    expect(parseDatabaseUrl('sqlite://tmp/x.db')).toEqual({ type: 'sqlite', path: resolve('tmp/x.db') });
    expect(parseDatabaseUrl('postgresql://u@h:5432/d')).toEqual({ type: 'postgres', url: 'postgresql://u@h:5432/d' });
  });

  it('rejects what it cannot use', () => {
    expect(() => parseDatabaseUrl('sqlite:')).toThrow(/file path/);
    expect(() => parseDatabaseUrl('mysql://u@h/d')).toThrow(/expected/);
    expect(() => parseDatabaseUrl('postgres://[not-a-host')).toThrow(/postgres/);
  });
});
