import { FakeUpstream } from './support/fake-upstream';
import { announceBody } from './support/raw-http';
import { TestApp } from './support/test-app';
import { PUBLIC_BASE_URL, signedAsUpstream, UPSTREAM_CALLBACK_PATH, videoAppForSuite } from './support/video-app';

const ANNOUNCED = 40 * 1024 * 1024;

describe('Upstream callbacks are verified before their body is read', () => {
  let upstream: FakeUpstream;
  let t: TestApp;
  videoAppForSuite({ PUBLIC_BASE_URL }, (video) => ({ upstream, testApp: t } = video));

  it.each([
    ['an unsigned', () => ({})],
    ['a stale', () => signedAsUpstream(upstream.apiKey, { date: new Date(Date.now() - 10 * 60 * 1000) })],
    ['a wrongly signed', () => signedAsUpstream('not-the-upstream-key')],
  ])('%s callback announcing 40 MiB is answered 401 before its body arrives', async (_case, headers) => {
    const reply = await announceBody(t, { method: 'POST', path: UPSTREAM_CALLBACK_PATH, headers: headers(), contentLength: ANNOUNCED, bodyStart: '{"id":' });
    expect(reply.status).toBe(401);
    expect(JSON.parse(reply.body)).toMatchObject({ statusCode: 401, error: 'Unauthorized', message: expect.stringContaining('upstream callback refused') });
  });

  it('reads a signed callback only up to what a status update echoing a maximal create needs (48 MiB): 413 beyond', async () => {
    const oversized = `{"id":"x","payload":"${'p'.repeat(48 * 1024 * 1024)}"}`;
    const reply = await t.http.post(UPSTREAM_CALLBACK_PATH).set(signedAsUpstream(upstream.apiKey)).set('Content-Type', 'application/json').send(oversized).expect(413);
    expect(reply.body).toMatchObject({ statusCode: 413, error: 'Payload Too Large' });
  });
});

describe('Upstream callbacks are rate limited by source address', () => {
  it('a flood of bad callbacks gets 429 with Retry-After once the address’s window is used up', async () => {
    const t = await TestApp.start({ THROTTLE_LIMIT: '3', THROTTLE_TTL_S: '60' });
    try {
      for (let i = 0; i < 3; i++) {
        await t.http.post(UPSTREAM_CALLBACK_PATH).send({ id: 'x', state: 'success' }).expect(401);
      }
      const limited = await t.http.post(UPSTREAM_CALLBACK_PATH).send({ id: 'x', state: 'success' }).expect(429);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect(limited.body).toMatchObject({ statusCode: 429, error: 'Too Many Requests' });
    } finally {
      await t.close();
    }
  });
});
