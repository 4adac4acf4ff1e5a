import { IncomingMessage, Server, ServerResponse } from 'node:http';

/** The reply of each request whose client waits for a 100 Continue, until a reader starts on its body. */
const waitingForContinue = new WeakMap<IncomingMessage, ServerResponse>();

/**
 * A client that sends `Expect: 100-continue` (curl does for bodies over
 * 1 MiB) waits for a 100 before it sends its body. Node would send it at
 * once, before any guard; here it goes out only when a reader starts on the
 * body (`continueBody`), so a request refused first (401, 403, 429, 415, a
 * declared length over the limit) is answered without its body ever being
 * sent, and Node closes that connection (docs/request-bodies.md).
 */
export function sendContinueOnRead(server: Server): void {
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    waitingForContinue.set(req, res);
    server.emit('request', req, res);
  });
}

/** Called by a body reader as it starts: sends the 100 Continue the client may be waiting for. */
export function continueBody(req: IncomingMessage): void {
  const res = waitingForContinue.get(req);
  if (!res) return;
  waitingForContinue.delete(req);
  if (!res.headersSent) res.writeContinue();
}
