import { TestApp } from './support/test-app';

/**
 * TRUST_PROXY (docs/api-rules.md §8): behind a trusted proxy each client gets its own
 * rate-limit window, keyed by the address the proxy saw; without it,
 * X-Forwarded-For is ignored, so a client cannot open windows by forging it.
 * supertest connects over loopback, so the test process plays the proxy.
 */
describe('TRUST_PROXY and the per-IP rate-limit window', () => {
  const LIMIT = { THROTTLE_LIMIT: '2', THROTTLE_TTL_S: '60' };

  async function statuses(t: TestApp, forwardedFor: string, count: number): Promise<number[]> {
    const replies: number[] = [];
    for (let i = 0; i < count; i++) {
      replies.push((await t.http.get('/nodes').set('X-Forwarded-For', forwardedFor)).status);
    }
    return replies;
  }

  it('unset: X-Forwarded-For is ignored, so forged addresses share the connection’s window', async () => {
    const t = await TestApp.start(LIMIT);
    try {
      expect(await statuses(t, '203.0.113.1', 1)).toEqual([200]);
      expect(await statuses(t, '203.0.113.2', 1)).toEqual([200]);
      const limited = await t.http.get('/nodes').set('X-Forwarded-For', '203.0.113.3');
      expect(limited.status).toBe(429);
      expect(limited.body).toMatchObject({ statusCode: 429, error: 'Too Many Requests' });
    } finally {
      await t.close();
    }
  });

  it.each(['loopback', '1', '127.0.0.1/8, ::1, ::ffff:127.0.0.1'])(
    '%s: each client behind the proxy has a window of its own, and only the proxy’s own entry is believed',
    async (trust) => {
      const t = await TestApp.start({ ...LIMIT, TRUST_PROXY: trust });
      try {
        expect(await statuses(t, '203.0.113.1', 3)).toEqual([200, 200, 429]);
        expect(await statuses(t, '203.0.113.2', 2)).toEqual([200, 200]);
        // The client sent its own X-Forwarded-For and the proxy appended the address it saw:
        // the forged entry is beyond the trusted hop, so this is still 203.0.113.1.
        expect(await statuses(t, '198.51.100.9, 203.0.113.1', 1)).toEqual([429]);
      } finally {
        await t.close();
      }
    },
  );

  it('a proxy that is not in the list is not believed', async () => {
    const t = await TestApp.start({ ...LIMIT, TRUST_PROXY: '10.0.0.0/8' });
    try {
      expect(await statuses(t, '203.0.113.1', 1)).toEqual([200]);
      expect(await statuses(t, '203.0.113.2', 2)).toEqual([200, 429]);
    } finally {
      await t.close();
    }
  });
});
