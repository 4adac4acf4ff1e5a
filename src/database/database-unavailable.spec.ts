import { QueryFailedError } from 'typeorm';
import { isDatabaseUnavailable } from './database-unavailable';

describe('isDatabaseUnavailable', () => {
  const withCode = (code: string) => Object.assign(new Error('x'), { code });

  it('knows a refused or lost connection and a server that is shutting down or starting', () => {
    expect(isDatabaseUnavailable(withCode('ECONNREFUSED'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true);
    // TypeORM's wrapper around the driver's error (57P03: the database system is starting up).
    expect(isDatabaseUnavailable(new QueryFailedError('SELECT 1', [], withCode('57P03')))).toBe(true);
  });

  it('knows a SQLite file another process kept locked past the busy timeout', () => {
    expect(isDatabaseUnavailable(new QueryFailedError('BEGIN IMMEDIATE TRANSACTION', [], withCode('SQLITE_BUSY')))).toBe(true);
    expect(isDatabaseUnavailable(withCode('SQLITE_BUSY_SNAPSHOT'))).toBe(true);
    expect(isDatabaseUnavailable(withCode('SQLITE_LOCKED'))).toBe(true);
    expect(isDatabaseUnavailable(withCode('SQLITE_CONSTRAINT_UNIQUE'))).toBe(false);
  });

  it('leaves every other failure a 500: a wrong statement, a broken rule, anything thrown', () => {
    expect(isDatabaseUnavailable(withCode('23505'))).toBe(false);
    expect(isDatabaseUnavailable(new QueryFailedError('SELECT nope', [], withCode('42P01')))).toBe(false);
    expect(isDatabaseUnavailable(new Error('Connection with the database is not established'))).toBe(false);
    expect(isDatabaseUnavailable('ECONNREFUSED')).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
  });
});
