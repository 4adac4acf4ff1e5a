import { Injectable, NestMiddleware } from '@nestjs/common';
import { IncomingMessage, ServerResponse } from 'node:http';
import { BodySizeLimits } from './body-size-limits';
import { hasBody, JsonBodyReader } from './json-body-reader';
import { RawBodyRoutes } from './raw-body-routes';

/** The request as the middleware sees it on either adapter (Fastify hands middleware node's own request). */
type MiddlewareRequest = IncomingMessage & { originalUrl?: string };

/**
 * JSON body parsing as Nest middleware (instead of the adapter's built-in
 * parser) so malformed, oversized and non-JSON bodies reach the global
 * exception filter and get the contract's error body, with the same rules and
 * messages on both HTTP adapters (Fastify hands the parsed body on, see
 * http-adapter.ts). The size limit is the route's own (see BodySizeLimits);
 * routes declared in RawBodyRoutes get their body untouched.
 */
@Injectable()
export class JsonBodyMiddleware implements NestMiddleware {
  constructor(
    private readonly limits: BodySizeLimits,
    private readonly rawRoutes: RawBodyRoutes,
    private readonly reader: JsonBodyReader,
  ) {}

  async use(req: MiddlewareRequest, _res: ServerResponse, next: () => void): Promise<void> {
    // Most requests (every GET) have no body: nothing to parse, so the parser is not called.
    if (!hasBody(req)) {
      next();
      return;
    }
    const path = (req.originalUrl ?? req.url ?? '').split('?')[0];
    if (this.rawRoutes.isRaw(req.method, path)) {
      next();
      return;
    }
    await this.reader.read(req, this.limits.limitFor(path));
    next();
  }
}
