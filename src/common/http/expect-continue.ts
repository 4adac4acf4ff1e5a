import { Logger } from '@nestjs/common';
import { IncomingMessage, Server, ServerResponse } from 'node:http';
import { rawErrorReply } from '../errors/http-error.filter';
import { requestIdOf } from './request-id';

const logger = new Logger('HttpServer');

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
export function handleExpectations(server: Server): void {
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    waitingForContinue.set(req, res);
    server.emit('request', req, res);
  });
  // Any other expectation cannot be met (RFC 9110 §10.1.1): 417 in the contract's error shape, where Node's own
  // answer has no body and no X-Request-Id.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const requestId = requestIdOf(req);
    logger.warn({ requestId, res: { status: 417 }, expect: req.headers.expect }, 'request refused: an expectation this server cannot meet');
    const { headers, body } = rawErrorReply(417, `only the expectation 100-continue is supported, not '${String(req.headers.expect).slice(0, 80)}'`, requestId);
    res.writeHead(417, { ...headers, Connection: 'close' });
    res.end(body);
  });
}

/** Called by a body reader as it starts: sends the 100 Continue the client may be waiting for. */
export function continueBody(req: IncomingMessage): void {
  const res = waitingForContinue.get(req);
  if (!res) return;
  waitingForContinue.delete(req);
  if (!res.headersSent) res.writeContinue();
}
