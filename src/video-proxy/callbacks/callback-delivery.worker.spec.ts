import { createHmac } from 'node:crypto';
import { callbackSignature, MAX_RETRY_DELAY_MS, retryDelayMs } from './callback-delivery.worker';

describe('callback delivery', () => {
  it('backs off from about a second, doubling, capped at 10 minutes', () => {
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, 1000))).toEqual([1000, 2000, 4000, 8000]);
    expect(retryDelayMs(11, 1000)).toBe(MAX_RETRY_DELAY_MS);
    expect(retryDelayMs(30, 1000)).toBe(MAX_RETRY_DELAY_MS);
  });

  it('signs the raw body with HMAC-SHA256, hex', () => {
    const body = '{"task_id":"t","state":"success"}';
    expect(callbackSignature('whsec_x', body)).toBe(`sha256=${createHmac('sha256', 'whsec_x').update(body).digest('hex')}`);
  });
});
