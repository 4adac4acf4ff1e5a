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

/** The request object a handler's `@Req()` receives: Express's extends node's, Fastify's wraps it. */
export type AdapterRequest = IncomingMessage | { raw: IncomingMessage };

/** Node's own request: Fastify wraps it in `raw`, Express extends it. */
export function nodeRequest(req: AdapterRequest): IncomingMessage {
  return 'raw' in req ? req.raw : req;
}

/** Node's own response: Fastify wraps it in `raw`, Express extends it. */
export function nodeResponse(res: ServerResponse | { raw: ServerResponse }): ServerResponse {
  return 'raw' in res ? res.raw : res;
}

/** A reply on either adapter: Express's is Node's response; Fastify's wraps it and can be told to stand aside. */
export type HttpReply = ServerResponse | { raw: ServerResponse; hijack(): unknown };

/**
 * Node's own response, for a handler that writes its reply itself (streaming
 * a file). On Fastify the reply is hijacked, so Fastify sends nothing of its
 * own and does not complain that the handler returned nothing. What the
 * pipeline already put on the response (X-Request-Id, security headers, the
 * request log's listener) is on Node's response, so it still applies.
 */
export function takeOverResponse(res: HttpReply): ServerResponse {
  if ('raw' in res) {
    res.hijack();
    return res.raw;
  }
  return res;
}

/**
 * The origin a client reached this service at, from its Host header, for
 * absolute URLs in replies when PUBLIC_BASE_URL is unset. Plain http: the
 * service itself never terminates TLS (set PUBLIC_BASE_URL behind a proxy).
 */
export function requestOrigin(req: { headers: IncomingHttpHeaders }): string {
  return `http://${req.headers.host ?? 'localhost'}`;
}
