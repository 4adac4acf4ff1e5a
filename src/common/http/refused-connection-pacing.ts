import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

/** Replies that refuse a request before any of its work: no valid token, a body past its limits, too many requests. */
const REFUSALS = new Set([401, 413, 415, 429]);

/** How long after a refusal the next request on the same connection waits (docs/request-bodies.md, "Refused connections"). */
export const REFUSED_CONNECTION_PAUSE_MS = 100;

/** By connection: when its next request may be served (its last one was refused). */
const pausedUntil = new WeakMap<Socket, number>();

/**
 * Middleware: a request that arrives on a connection whose previous request
 * was refused waits until `pauseMs` after that refusal. A client kept alive
 * and sending refused requests back to back then costs the service one
 * refusal per connection per `pauseMs`, however cheap each is to send, and
 * leaves the event loop to other clients; a request that comes later, or on
 * another connection, does not wait. The refusal itself is answered at once.
 */
export function paceRefusedConnections(pauseMs = REFUSED_CONNECTION_PAUSE_MS) {
  return (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    const socket = req.socket;
    res.once('finish', () => {
      if (REFUSALS.has(res.statusCode)) pausedUntil.set(socket, performance.now() + pauseMs);
    });
    const wait = (pausedUntil.get(socket) ?? 0) - performance.now();
    if (wait <= 0) return next();
    setTimeout(next, wait);
  };
}
