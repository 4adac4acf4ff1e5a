import { validateEnvironment } from './environment';

describe('validateEnvironment', () => {
  it('applies defaults', () => {
    const env = validateEnvironment({});
    expect(env.PORT).toBe(3000);
    expect(env.LOG_LEVEL).toBe('info');
    expect(env.database.type).toBe('sqlite');
  });

  it('names the variable that is wrong', () => {
    expect(() => validateEnvironment({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => validateEnvironment({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
    expect(() => validateEnvironment({ DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL/);
    expect(() => validateEnvironment({ PUBLIC_BASE_URL: 'ftp://registry.example.com' })).toThrow(/PUBLIC_BASE_URL/);
    expect(() => validateEnvironment({ TRUST_PROXY: '10.0.0.0/8, proxy.internal' })).toThrow(/TRUST_PROXY/);
    expect(() => validateEnvironment({ TRUST_PROXY: 'loopback,' })).toThrow(/TRUST_PROXY/);
    expect(() => validateEnvironment({ REDIS_URL: 'http://127.0.0.1:6379' })).toThrow(/REDIS_URL/);
    expect(validateEnvironment({ REDIS_URL: 'redis://127.0.0.1:6379/3' }).REDIS_URL).toBe('redis://127.0.0.1:6379/3');
    for (const REDIS_URL of ['redis://127.0.0.1:6379/abc', 'redis://127.0.0.1:6379?db=abc', 'redis://127.0.0.1:6379/99999999999999999999']) {
      expect(() => validateEnvironment({ REDIS_URL })).toThrow(/REDIS_URL: the database number \(its path, or a db parameter\) must be a number/);
    }
    for (const REDIS_URL of ['redis://[::1]:6379/0', 'redis://cache/', 'redis://:secret@cache:6379?db=2']) expect(validateEnvironment({ REDIS_URL }).REDIS_URL).toBe(REDIS_URL);
    expect(validateEnvironment({ REDIS_URL: 'rediss://user:p%40ss@cache.internal:6380/12?family=6' }).REDIS_URL).toBe('rediss://user:p%40ss@cache.internal:6380/12?family=6');
    expect(() => validateEnvironment({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN/);
    expect(() => validateEnvironment({ METRICS_TOKEN: 'a token with spaces in it' })).toThrow(/METRICS_TOKEN/);
    expect(validateEnvironment({ METRICS_TOKEN: 'prometheus-scrape-token' }).METRICS_TOKEN).toBe('prometheus-scrape-token');
  });

  it('never shows a secret it refuses, nor a URL’s password', () => {
    const problemsOf = (raw: Record<string, string>) => {
      try {
        validateEnvironment(raw);
      } catch (error) {
        return (error as Error).message;
      }
      throw new Error('accepted');
    };
    const token = problemsOf({ METRICS_TOKEN: 'short-secret' });
    expect(token).toMatch(/METRICS_TOKEN: .* \(got a value not shown: it is a secret\)/);
    expect(token).not.toContain('short-secret');
    const redis = problemsOf({ REDIS_URL: 'redis://admin:hunter 2@cache:6379/0' });
    expect(redis).toContain('(got "redis://admin:***@cache:6379/0")');
    expect(redis).not.toContain('hunter');
    const lastAt = problemsOf({ REDIS_URL: 'redis://u:p@ss word@h/0' });
    expect(lastAt).toContain('(got "redis://u:***@h/0")');
    const inQuery = problemsOf({ REDIS_URL: 'redis://cache:6379/0?password=hunter 2' });
    expect(inQuery).toContain('(got "redis://cache:6379/0?password=***")');
    expect(problemsOf({ PORT: 'eighty' })).toContain('(got "eighty")');
  });

  it('compiles TRUST_PROXY with Express trust-proxy semantics', () => {
    // Unset: no hop is trusted, so X-Forwarded-For never picks the client address.
    expect(validateEnvironment({}).trustProxy('127.0.0.1', 0)).toBe(false);
    const hops = validateEnvironment({ TRUST_PROXY: '2' }).trustProxy;
    expect([hops('203.0.113.1', 0), hops('203.0.113.1', 1), hops('203.0.113.1', 2)]).toEqual([true, true, false]);
    const list = validateEnvironment({ TRUST_PROXY: 'loopback, 10.0.0.0/8' }).trustProxy;
    expect([list('127.0.0.1', 0), list('::1', 0), list('10.1.2.3', 1), list('203.0.113.1', 0)]).toEqual([true, true, true, false]);
  });

  it('treats empty variables as unset', () => {
    expect(validateEnvironment({ PORT: '', LOG_LEVEL: '' })).toMatchObject({ PORT: 3000, LOG_LEVEL: 'info' });
  });

  it('parses integers and database urls', () => {
    const env = validateEnvironment({ PORT: '8080', DATABASE_URL: 'postgres://root@127.0.0.1:5432/test' });
    expect(env.PORT).toBe(8080);
    expect(env.database).toEqual({ type: 'postgres', url: 'postgres://root@127.0.0.1:5432/test' });
    expect(validateEnvironment({ DATABASE_URL: 'sqlite::memory:' }).database).toEqual({ type: 'sqlite', path: ':memory:' });
  });
});
