import { randomUUID } from 'node:crypto';
import { IncomingMessage, ServerResponse } from 'node:http';

export const REQUEST_ID_HEADER = 'x-request-id';
const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

type RequestWithId = IncomingMessage & { id?: unknown };

/**
 * The request's id: a valid incoming X-Request-Id is echoed, otherwise a new
 * UUID. Idempotent, so the adapter, the logger and the error filter can all
 * call it in whatever order they run; given the response, it also makes sure
 * the reply carries the header.
 */
export function requestIdOf(req: IncomingMessage, res?: ServerResponse): string {
  const request = req as RequestWithId;
  const id = typeof request.id === 'string' ? request.id : newRequestId(req);
  request.id = id;
  if (res && !res.headersSent && !res.hasHeader(REQUEST_ID_HEADER)) {
    res.setHeader('X-Request-Id', id);
  }
  return id;
}

function newRequestId(req: IncomingMessage): string {
  const incoming = req.headers[REQUEST_ID_HEADER];
  return typeof incoming === 'string' && VALID_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}
