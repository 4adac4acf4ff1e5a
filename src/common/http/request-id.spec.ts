import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { requestIdOf } from './request-id';

function exchange(header?: string) {
  const req = new IncomingMessage(new Socket());
  if (header !== undefined) req.headers['x-request-id'] = header;
  return { req, res: new ServerResponse(req) };
}

describe('requestIdOf', () => {
  it('echoes a valid incoming id and sets the reply header', () => {
    const { req, res } = exchange('trace.42:a-b_c');
    expect(requestIdOf(req, res)).toBe('trace.42:a-b_c');
    expect(res.getHeader('X-Request-Id')).toBe('trace.42:a-b_c');
  });

  it('replaces invalid ids with a UUID', () => {
    for (const header of ['has space', 'x'.repeat(129), 'line\nbreak', '']) {
      const { req, res } = exchange(header);
      expect(requestIdOf(req, res)).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('is stable for one request', () => {
    const { req, res } = exchange();
    expect(requestIdOf(req, res)).toBe(requestIdOf(req, res));
  });
});
