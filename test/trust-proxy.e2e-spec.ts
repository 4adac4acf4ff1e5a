import { createPublisherWithNode } from './support/registry-fixtures';
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

describe('The per-token window of a token sent in the body (the publishing CLI’s)', () => {
  it('counts with the bearer token’s, whatever address the requests come from', async () => {
    const t = await TestApp.start({ THROTTLE_LIMIT: '3', THROTTLE_TTL_S: '60', TRUST_PROXY: 'loopback' });
    try {
      const f = await createPublisherWithNode(t);
      const publish = (n: number, versionFields: object = {}) =>
        t.http
          .post(`/publishers/${f.publisherId}/nodes/${f.nodeId}/versions`)
          .set('X-Forwarded-For', `203.0.113.${n}`)
          .send({ personal_access_token: f.member.token, node: { id: f.nodeId }, node_version: { version: `1.0.${n}`, ...versionFields } });
      // One request with the token as a bearer header first: the body's count joins it.
      expect((await t.http.get('/users/me').set('X-Forwarded-For', '203.0.113.100').set(f.member.auth)).status).toBe(200);
      // A body refused for its content counts too: the token is counted before the body is checked.
      expect((await publish(1, { colour: 'red' })).status).toBe(400);
      const statuses = [];
      for (let n = 2; n <= 4; n++) statuses.push((await publish(n)).status);
      expect(statuses).toEqual([201, 429, 429]);
      const limited = await publish(9);
      expect(limited.body).toMatchObject({ statusCode: 429, error: 'Too Many Requests' });
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await t.close();
    }
  });
});
