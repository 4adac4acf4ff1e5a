import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { maxHeaderSize, Server, ServerResponse, STATUS_CODES } from 'node:http';
import { Duplex } from 'node:stream';
import { rawErrorReply } from '../errors/http-error.filter';
import { isDrainingRefusedBody } from './refused-body-drain';
import { requestIdOf } from './request-id';

/** The status and message for an error Node's HTTP parser (or its request timer) raised. */
function describe(code: string | undefined, server: Server): { status: number; message: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, message: `the request line and headers are larger than ${maxHeaderSize} bytes` };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, message: 'the request body’s chunk extensions are too large' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, message: `the request was not received within ${server.requestTimeout} ms` };
    default:
      return { status: 400, message: 'the request is not valid HTTP/1.1' };
  }
}

const logger = new Logger('HttpServer');

/**
 * Requests Node refuses before or while handing them to the framework (a URL
 * or headers over its size limit, a malformed request line or chunked body, a
 * client too slow to send its request) get the contract's error body and an
 * X-Request-Id too: Node's own answer has no body. One warn line is logged
 * per refusal.
 */
export function answerClientErrorsInErrorShape(server: Server): void {
  // Node's default answer: this one replaces it.
  server.removeAllListeners('clientError');
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
    // A reply may only go out if nothing of one was written yet and it cannot be mistaken for the
    // answer to an earlier, complete (pipelined) request on the same connection.
    // Nor after a request that had its reply and whose refused body is being drained (its time ran out meanwhile).
    if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent || inFlight?.req.complete || isDrainingRefusedBody(socket)) {
      socket.destroy();
      return;
    }
    const { status, message } = describe(error.code, server);
    // The request whose body failed already has an id (echoed from its headers, or logged); else a new one.
    const requestId = inFlight ? requestIdOf(inFlight.req) : randomUUID();
    logger.warn({ requestId, res: { status }, code: error.code }, 'request refused by the HTTP parser');
    const { headers, body } = rawErrorReply(status, message, requestId);
    const head = Object.entries({ ...headers, Connection: 'close' }).map(([name, value]) => `${name}: ${value}\r\n`);
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head.join('')}\r\n${body}`);
  });
}
