import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { Principal } from '../../auth/principal';

/**
 * What the application reads from a request. Handlers that stream a body or
 * a reply themselves take Node's own IncomingMessage or ServerResponse
 * (Express's extend them), so no code outside common/http depends on the
 * platform's own API.
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

/** A Host header as RFC 9110 allows one: a name or IPv4 address, or a bracketed IPv6 address, and an optional port. */
const VALID_HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The origin a client reached this service at, from its Host header, for
 * absolute URLs in replies when PUBLIC_BASE_URL is unset. Plain http: the
 * service itself never terminates TLS (set PUBLIC_BASE_URL behind a proxy).
 * A Host that is not a host (Node accepts any text) counts as `localhost`:
 * it could carry a path into links and into the read cache's keys.
 */
export function requestOrigin(req: { headers: IncomingHttpHeaders }): string {
  const host = req.headers.host;
  return `http://${host !== undefined && VALID_HOST.test(host) ? host : 'localhost'}`;
}

/** The request's origin (requestOrigin), for a handler whose reply holds absolute links. */
export const RequestOrigin = createParamDecorator((_data: unknown, context: ExecutionContext): string =>
  requestOrigin(context.switchToHttp().getRequest<IncomingMessage>()),
);

/**
 * The route Express matched for a request, as its template (`/nodes/:nodeId`),
 * never the raw path, so it can label figures without an id in them;
 * undefined when no route matched (an unknown path, or a known one without
 * the request's method).
 */
export function routeTemplateOf(req: IncomingMessage): string | undefined {
  const { baseUrl, route } = req as IncomingMessage & { baseUrl?: string; route?: { path?: unknown; methods?: Record<string, boolean | undefined> } };
  if (typeof route?.path !== 'string') return undefined;
  const methods = route.methods ?? {};
  const method = (req.method ?? '').toLowerCase();
  // Express tries a HEAD on the route's GET handler, and names the route before it finds none.
  const served = methods._all === true || methods[method] === true || (method === 'head' && methods.get === true);
  return served ? `${baseUrl ?? ''}${route.path}` : undefined;
}
