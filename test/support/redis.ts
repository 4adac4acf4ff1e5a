import Redis from 'ioredis';

/**
 * TEST_REDIS_URL plus the database number a suite keeps to itself (suites
 * running at once must not share rate-limit windows). Null when no Redis is
 * given: those suites are skipped (`npm test` needs no Redis).
 */
export function testRedisUrl(database: number): string | null {
  const base = process.env.TEST_REDIS_URL;
  if (!base) return null;
  const url = new URL(base);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Empties the suite's database (rate-limit windows) when it is done. */
export async function flushRedis(url: string): Promise<void> {
  const client = new Redis(url);
  try {
    await client.flushdb();
  } finally {
    client.disconnect();
  }
}
