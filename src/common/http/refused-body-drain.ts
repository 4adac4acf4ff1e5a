import { IncomingMessage, Server, ServerResponse } from 'node:http';
import { SharedRate } from '../pacing/shared-rate';
import { MIB } from './json-body-limits';
import { hasBody } from './json-body-reader';

/**
 * How much of the bodies it has already answered the service reads. Figures
 * and why: docs/request-bodies.md ("What happens to the rest of a refused body").
 */
export interface RefusedBodyDrainLimits {
  /** For every such body together: what a flood of refused bodies can cost, whatever the number of connections. */
  bytesPerSecond: number;
  /** Of one body, after its reply: past this the connection is closed. */
  maxBytes: number;
  /** After the reply: a body not complete by then has its connection closed. */
  maxMs: number;
}

export const REFUSED_BODY_DRAIN: RefusedBodyDrainLimits = { bytesPerSecond: 32 * MIB, maxBytes: 64 * MIB, maxMs: 10_000 };

/**
 * Reads and discards the rest of `req`'s body at the shared rate. A body that
 * ends within the caps leaves its connection usable, as a client sending whole
 * bodies expects; one past a cap has its connection closed. The client is then
 * still sending this same body, so no next request can be lost, and it has had
 * its reply since the drain began.
 */
function drainRest(req: IncomingMessage, limits: RefusedBodyDrainLimits, rate: SharedRate): void {
  let read = 0;
  let paused: NodeJS.Timeout | undefined;
  const close = () => req.socket.destroy();
  const deadline = setTimeout(close, limits.maxMs).unref();
  const onData = (chunk: Buffer) => {
    read += chunk.length;
    if (read > limits.maxBytes) return close();
    const wait = rate.book(chunk.length);
    if (wait > 0 && !paused) {
      req.pause();
      paused = setTimeout(() => {
        paused = undefined;
        req.resume();
      }, wait).unref();
    }
  };
  const stop = () => {
    clearTimeout(deadline);
    clearTimeout(paused);
    req.off('data', onData);
  };
  req.once('end', stop);
  req.once('close', stop);
  req.on('data', onData);
  req.resume();
}

/**
 * Once a reply has gone out for a request whose body is not all read (a 413,
 * 400 or 415 from the body reader, an archive refused, a 401 or 429 from a
 * guard before any byte was read, any reply that did not need the body), the
 * rest of that body is drained within `limits`.
 *
 * Node discards, at full speed and out of reach of any listener, the body of
 * a request nobody started to read when its reply finishes (req._dump); it
 * leaves alone a body that is being read. So each body is marked as read from
 * the start with `read(0)`, which takes no byte: the body still waits, paused
 * by its stream's back-pressure, for the guards and the body reader, and what
 * nobody reads is this drain's.
 *
 * The reply itself says nothing: a `Connection: close` would make Node close
 * the socket as soon as the reply is written, and a client still writing
 * could lose the reply to the reset.
 */
export function drainRefusedBodies(server: Server, limits: RefusedBodyDrainLimits = REFUSED_BODY_DRAIN): void {
  const rate = new SharedRate(limits.bytesPerSecond);
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    if (!hasBody(req)) return;
    req.read(0);
    res.once('finish', () => {
      if (!req.readableEnded && !req.destroyed) drainRest(req, limits, rate);
    });
  });
}
