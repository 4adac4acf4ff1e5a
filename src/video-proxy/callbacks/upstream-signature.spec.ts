import { createHmac } from 'node:crypto';
import { signHeaders, signingString, verifyUpstreamSignature } from './upstream-signature';

const KEY = 'upstream-api-key';
const lower = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));

describe('upstream callback signatures', () => {
  it('builds the signing string exactly as the contract describes', () => {
    const text = signingString(
      {
        method: 'post',
        path: '/proxy/video/callbacks/upstream',
        query: { b: '2', a: '1' },
        accessKey: 'AK',
        headers: { date: 'Sun, 22 Nov 2026 10:00:00 GMT', 'x-request-nonce': 'n-1' },
      },
      ['Date', 'x-request-nonce'],
    );
    expect(text).toBe(
      'POST\n/proxy/video/callbacks/upstream\na=1&b=2\nAK\nSun, 22 Nov 2026 10:00:00 GMT\nDate:Sun, 22 Nov 2026 10:00:00 GMT\nx-request-nonce:n-1\n',
    );
  });

  it('accepts what the upstream signs and matches an independent HMAC', () => {
    const date = new Date();
    const headers = signHeaders(KEY, 'AK', { method: 'POST', path: '/cb', query: {} }, 'nonce-1', date);
    const expected = createHmac('sha256', KEY)
      .update(`POST\n/cb\n\nAK\n${date.toUTCString()}\nDate:${date.toUTCString()}\nx-request-nonce:nonce-1\n`)
      .digest('base64');
    expect(headers['X-HMAC-SIGNATURE']).toBe(expected);
    expect(verifyUpstreamSignature(KEY, 'POST', '/cb', {}, lower(headers))).toBeUndefined();
  });

  it('refuses unsigned, mis-signed, tampered and stale callbacks', () => {
    const headers = lower(signHeaders(KEY, 'AK', { method: 'POST', path: '/cb', query: {} }, 'nonce-2'));
    expect(verifyUpstreamSignature(KEY, 'POST', '/cb', {}, { date: headers.date })).toBe('unsigned');
    expect(verifyUpstreamSignature('other-key', 'POST', '/cb', {}, headers)).toBe('bad signature');
    expect(verifyUpstreamSignature(KEY, 'POST', '/other', {}, headers)).toBe('bad signature');
    expect(verifyUpstreamSignature(KEY, 'POST', '/cb', {}, { ...headers, 'x-request-nonce': 'swapped' })).toBe('bad signature');
    expect(verifyUpstreamSignature(KEY, 'POST', '/cb', {}, { ...headers, 'x-hmac-signed-headers': 'Date' })).toBe('unsigned');
    const old = new Date(Date.now() - 6 * 60 * 1000);
    const stale = lower(signHeaders(KEY, 'AK', { method: 'POST', path: '/cb', query: {} }, 'nonce-3', old));
    expect(verifyUpstreamSignature(KEY, 'POST', '/cb', {}, stale)).toBe('stale');
  });
});
