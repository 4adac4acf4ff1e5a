import { TooManyRequestsException } from '../../common/errors/too-many-requests.exception';
import { cancelFailure, isCancelAccepted, parseCredits, parseTaskReply, retryAfterSeconds, upstreamFailure } from './upstream-protocol';

describe('upstream protocol', () => {
  it('reads credits as a number or a numeric string', () => {
    expect(parseCredits(12)).toBe(12);
    expect(parseCredits('12')).toBe(12);
    expect(parseCredits('12.0')).toBe(12);
    for (const bad of ['12.5', 'twelve', -1, 1.5, null, undefined, '', {}]) {
      expect(parseCredits(bad)).toBeUndefined();
    }
  });

  it('builds the reply from a task body and rejects malformed ones', () => {
    expect(parseTaskReply({ task_id: 't1', state: 'created', credits: '40', model: 'videoq2-pro', seed: 7, extra: 'x', bgm: null })).toEqual({
      task_id: 't1',
      state: 'created',
      credits: 40,
      model: 'videoq2-pro',
      seed: 7,
    });
    // err_code only on a failed task, cleaned as a status's is.
    expect(parseTaskReply({ task_id: 't2', state: 'failed', credits: 0, err_code: 'Moder\u0000ation' })).toEqual({ task_id: 't2', state: 'failed', credits: 0, err_code: 'Moderation' });
    expect(parseTaskReply({ task_id: 't3', state: 'created', credits: 0, err_code: 'X' })).toEqual({ task_id: 't3', state: 'created', credits: 0 });
    // created_at only as an instant, written in UTC.
    const at = (created_at: unknown) => parseTaskReply({ task_id: 't4', state: 'created', credits: 0, created_at })?.created_at;
    expect(at('2025-01-01T15:41:31.968Z')).toBe('2025-01-01T15:41:31.968Z');
    expect(at('2025-01-01T23:41:31+08:00')).toBe('2025-01-01T15:41:31.000Z');
    // ISO 8601 forms Date cannot read are left out too, never an error (the task exists upstream by now).
    for (const notAnInstant of ['not a date', '2025-01-01', '2025-01-01T15:41:31', '2025-13-01T00:00:00Z', 1735745000, '2025-01-01T23:41:31+08', '20250101T104131Z', '2025-01-01T10Z', '2025-W01-1T10:00Z']) {
      expect(at(notAnInstant)).toBeUndefined();
    }
    for (const bad of [null, 'text', [], { task_id: 't', state: 'done', credits: 1 }, { task_id: '', state: 'created', credits: 1 }, { task_id: 't', state: 'created' }]) {
      expect(parseTaskReply(bad)).toBeUndefined();
    }
  });

  it.each([
    [400, { message: 'prompt is rude' }, 400, 'the video model rejected the request: prompt is rude'],
    [422, { reason: 'bad image' }, 400, 'the video model rejected the request: bad image'],
    [401, { message: 'key sk-123 invalid' }, 502, 'the video service refused this proxy’s credentials'],
    [403, {}, 502, 'the video service refused this proxy’s credentials'],
    [402, {}, 503, 'the video service is out of credits; try again later'],
    [400, { code: 'CreditInsufficient', message: 'no credits' }, 503, 'the video service is out of credits; try again later'],
    [500, { message: 'boom' }, 502, 'the video service failed (HTTP 500)'],
    [503, 'Service Unavailable', 502, 'the video service failed (HTTP 503)'],
  ])('maps upstream %i %j to %i', (status, body, expected, message) => {
    const error = upstreamFailure(status, body, {});
    expect(error.getStatus()).toBe(expected);
    expect(error.message).toBe(message);
  });

  it('maps 429 with its Retry-After', () => {
    const error = upstreamFailure(429, {}, { 'retry-after': '7' }) as TooManyRequestsException;
    expect(error.getStatus()).toBe(429);
    expect(error.retryAfterSeconds).toBe(7);
    expect(retryAfterSeconds(undefined)).toBe(1);
    expect(retryAfterSeconds(new Date(Date.now() + 30_000).toUTCString())).toBeGreaterThanOrEqual(29);
  });

  it('maps a refused cancel: 4xx is 409 with the message (credentials aside), anything else 502', () => {
    const refused = cancelFailure(400, { code: 'BadRequest', message: 'task state is scheduled, can not cancel' });
    expect([refused.getStatus(), refused.message]).toEqual([409, 'the video service refused to cancel the task: task state is scheduled, can not cancel']);
    expect(cancelFailure(404, { message: 'key-123 unknown' }, 'key-123').message).toContain('[redacted] unknown');
    expect([401, 403, 500, 503].map((status) => cancelFailure(status, {}).getStatus())).toEqual([502, 502, 502, 502]);
    expect([{}, { ok: true }].every(isCancelAccepted)).toBe(true);
    expect(['', 'ok', [], null].some(isCancelAccepted)).toBe(false);
  });
});
