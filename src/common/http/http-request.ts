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

/**
 * The origin a client reached this service at, from its Host header, for
 * absolute URLs in replies when PUBLIC_BASE_URL is unset. Plain http: the
 * service itself never terminates TLS (set PUBLIC_BASE_URL behind a proxy).
 */
export function requestOrigin(req: { headers: IncomingHttpHeaders }): string {
  return `http://${req.headers.host ?? 'localhost'}`;
}

/** The request's origin (requestOrigin), for a handler whose reply holds absolute links. */
export const RequestOrigin = createParamDecorator((_data: unknown, context: ExecutionContext): string =>
  requestOrigin(context.switchToHttp().getRequest<IncomingMessage>()),
);

/**
 * The route Express matched for a request, as its template (`/nodes/:nodeId`),
 * never the raw path, so it can label figures without an id in them;
 * undefined when no route matched (an unknown path).
 */
export function routeTemplateOf(req: IncomingMessage): string | undefined {
  const { baseUrl, route } = req as IncomingMessage & { baseUrl?: string; route?: { path?: unknown } };
  return typeof route?.path === 'string' ? `${baseUrl ?? ''}${route.path}` : undefined;
}
