import { randomUUID } from 'node:crypto';
import { IncomingMessage, ServerResponse } from 'node:http';

export const REQUEST_ID_HEADER = 'x-request-id';
const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

type RequestWithId = IncomingMessage & { id?: unknown };

/**
 * The request's id: a valid incoming X-Request-Id is echoed, otherwise a new
 * UUID. Idempotent, so the logger and the error filter can both call it in
 * whatever order they run, and the reply always carries the header.
 */
export function requestIdOf(req: IncomingMessage, res: ServerResponse): string {
  const request = req as RequestWithId;
  if (typeof request.id === 'string') {
    return request.id;
  }
  const incoming = req.headers[REQUEST_ID_HEADER];
  const id = typeof incoming === 'string' && VALID_REQUEST_ID.test(incoming) ? incoming : randomUUID();
  request.id = id;
  if (!res.headersSent) {
    res.setHeader('X-Request-Id', id);
  }
  return id;
}
