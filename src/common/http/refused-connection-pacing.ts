import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { ProxyTrust } from './trust-proxy';

/** Replies that refuse a request before any of its work: no valid token, a body past its limits, too many requests. */
const REFUSALS = new Set([401, 413, 415, 429]);

/** How long after a refusal the next request on the same connection waits (docs/request-bodies.md, "Refused connections pause"). */
export const REFUSED_CONNECTION_PAUSE_MS = 100;

/** By connection: when its latest request's turn ends (its reply, then the pause if it was a refusal). */
const turnEnds = new WeakMap<Socket, Promise<void>>();
/** Turn ends already reached: the request after one goes on at once. */
const ended = new WeakSet<Promise<void>>();

/**
 * Middleware: the requests of one client connection are served in turn, and
 * a request that follows a refusal on it waits until `pauseMs` after that
 * reply. A client kept alive (or pipelining) that sends refused requests back
 * to back then costs the service one refusal per `pauseMs`, however cheap
 * each is to send, and leaves the event loop to other clients; the refusal
 * itself is answered at once, and a request on another connection, or after
 * the pause, does not wait. A trusted proxy's connections (TRUST_PROXY) carry
 * other clients' requests too: they are not paused.
 */
export function paceRefusedConnections(trustProxy: ProxyTrust, pauseMs = REFUSED_CONNECTION_PAUSE_MS) {
  return (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    const socket = req.socket;
    if (trustProxy(socket.remoteAddress ?? '', 0)) return next();
    const previous = turnEnds.get(socket);
    const end = new Promise<void>((resolve) => {
      // 'close' comes once the reply is sent, or once the client has gone.
      res.once('close', () => (res.writableFinished && REFUSALS.has(res.statusCode) ? setTimeout(resolve, pauseMs) : resolve()));
    });
    void end.then(() => ended.add(end));
    turnEnds.set(socket, end);
    if (previous === undefined || ended.has(previous)) return next();
    void previous.then(next);
  };
}
