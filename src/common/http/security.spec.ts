import helmet from 'helmet';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { replayHelmet } from './security';

function response(): { req: IncomingMessage; res: ServerResponse } {
  const req = new IncomingMessage(new Socket());
  const res = new ServerResponse(req);
  res.setHeader('X-Powered-By', 'Express');
  return { req, res };
}

describe('replayHelmet', () => {
  it('leaves a reply exactly as helmet itself does', () => {
    const options = { contentSecurityPolicy: { directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } } };
    const byHelmet = response();
    const replayed = response();
    const next = jest.fn();
    helmet(options)(byHelmet.req, byHelmet.res, next);
    replayHelmet(helmet(options))(replayed.req, replayed.res, next);
    expect(next).toHaveBeenCalledTimes(2);
    expect(next).toHaveBeenCalledWith();
    expect(replayed.res.getHeaders()).toEqual(byHelmet.res.getHeaders());
    expect(replayed.res.getHeader('content-security-policy')).toContain("default-src 'none';");
    expect(replayed.res.getHeader('x-powered-by')).toBeUndefined();
  });

  it('refuses at startup a middleware whose headers depend on the request', () => {
    const perRequest = (_req: IncomingMessage, _res: ServerResponse, next: (error?: unknown) => void) => setImmediate(next);
    expect(() => replayHelmet(perRequest)).toThrow('helmet did not finish synchronously');
    const failing = (_req: IncomingMessage, _res: ServerResponse, next: (error?: unknown) => void) => next(new Error('bad directive'));
    expect(() => replayHelmet(failing)).toThrow('helmet did not finish synchronously');
  });
});
