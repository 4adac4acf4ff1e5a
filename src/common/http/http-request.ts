import { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { Principal } from '../../auth/principal';

/**
 * What the application reads from a request, on either adapter (Express's
 * request and Fastify's both have these). Nothing here may depend on one
 * adapter's own API.
 */
export interface HttpRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  query: Record<string, unknown>;
  ip?: string;
  /** Set by the bearer guard. */
  user?: Principal;
}

/** Node's own request: Fastify wraps it in `raw`, Express extends it. */
export function nodeRequest(req: IncomingMessage | { raw: IncomingMessage }): IncomingMessage {
  return 'raw' in req ? req.raw : req;
}

/** Node's own response: Fastify wraps it in `raw`, Express extends it. */
export function nodeResponse(res: ServerResponse | { raw: ServerResponse }): ServerResponse {
  return 'raw' in res ? res.raw : res;
}
