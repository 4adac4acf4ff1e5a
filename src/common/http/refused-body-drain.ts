import { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { Duplex } from 'node:stream';
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
  /** After the reply: a body not complete by then has its connection closed (the service passes REQUEST_TIMEOUT_MS). */
  maxMs: number;
}

export const REFUSED_BODY_DRAIN: RefusedBodyDrainLimits = { bytesPerSecond: 32 * MIB, maxBytes: 64 * MIB, maxMs: 60_000 };

/** By connection: the request whose refused body is being drained there (see answerClientErrorsInErrorShape). */
const draining = new WeakMap<Socket, IncomingMessage>();
/** By connection: its latest request (another may follow a drained one before the drain ends). */
const latestRequest = new WeakMap<Socket, IncomingMessage>();
/** By connection: ends the pause of the drain there, if the rate has it waiting. */
const endPause = new WeakMap<Socket, () => void>();

/**
 * Whether `socket`'s request was answered and the rest of its body is still
 * arriving: nothing more may be written to it. Once that body has all
 * arrived, an error on the connection is the next request's.
 */
export function isDrainingRefusedBody(socket: Duplex): boolean {
  const req = draining.get(socket as Socket);
  return req !== undefined && !req.complete;
}

/**
 * Reads and discards the rest of `req`'s body at the shared rate. A body that
 * ends within the caps leaves its connection usable, as a client sending whole
 * bodies expects; one past a cap, still arriving, has its connection closed:
 * the client is then still sending this same body, so no next request can be
 * lost, and it has had its reply since the drain began. Once the body has all
 * arrived (the rest is in memory, and the next request may already be in
 * flight on the connection) it is read on at once and never closed.
 */
function drainRest(req: IncomingMessage, limits: RefusedBodyDrainLimits, rate: SharedRate, keepAliveTimeoutMs: number): void {
  const socket = req.socket;
  let read = 0;
  let paused: NodeJS.Timeout | undefined;
  const close = () => {
    if (!req.complete) socket.destroy();
  };
  const deadline = setTimeout(close, limits.maxMs).unref();
  const resume = () => {
    clearTimeout(paused);
    paused = undefined;
    req.resume();
  };
  const onData = (chunk: Buffer) => {
    read += chunk.length;
    if (req.complete) return;
    if (read > limits.maxBytes) return close();
    const wait = rate.book(chunk.length);
    if (wait > 0 && !paused) {
      req.pause();
      paused = setTimeout(resume, wait).unref();
    }
  };
  const stop = () => {
    if (draining.get(socket) === req) draining.delete(socket);
    if (endPause.get(socket) === resume) endPause.delete(socket);
    // Idle again, unless a next request came meanwhile (Node has set its own timer for that one).
    if (latestRequest.get(socket) === req && !socket.destroyed) socket.setTimeout(keepAliveTimeoutMs);
    clearTimeout(deadline);
    clearTimeout(paused);
    req.off('data', onData);
    req.off('end', stop);
    // A kept-alive connection carries many requests: each drain's listener goes with it.
    socket.off('close', stop);
  };
  draining.set(socket, req);
  endPause.set(socket, resume);
  // Node armed its keep-alive timer when the reply finished: it would cut a drain the rate pauses, or a slow
  // uplink, after a few seconds, whatever the bounds above. The deadline bounds the drain instead.
  socket.setTimeout(0);
  req.once('end', stop);
  // Once the reply has finished, Node no longer reports an abort on the request: the socket's close is what tells.
  socket.once('close', stop);
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
    // Node parses a connection's next request only once the previous one has all arrived: a drain the rate
    // paused there has the rest in memory, so it reads it at once and ends, rather than one drain waiting per request.
    endPause.get(req.socket)?.();
    latestRequest.set(req.socket, req);
    if (!hasBody(req)) return;
    req.read(0);
    res.once('finish', () => {
      if (!req.readableEnded && !req.destroyed) drainRest(req, limits, rate, server.keepAliveTimeout);
    });
  });
}
