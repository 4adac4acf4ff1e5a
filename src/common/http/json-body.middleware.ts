import {
  BadRequestException,
  HttpException,
  Injectable,
  NestMiddleware,
  PayloadTooLargeException,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import { json } from 'body-parser';
import { IncomingMessage, ServerResponse } from 'node:http';
import typeIs from 'type-is';
import { BodySizeLimits } from './body-size-limits';
import { RawBodyRoutes } from './raw-body-routes';

interface BodyParserError {
  type?: string;
  status?: number;
  message?: string;
}

/** The body parser's failures, as exceptions the global filter renders in the contract's shape. */
function toHttpException(error: BodyParserError, limit: string): HttpException {
  switch (error.type) {
    case 'entity.parse.failed':
      return new BadRequestException('request body is not valid JSON');
    case 'entity.too.large':
      return new PayloadTooLargeException(`request body is larger than ${limit}`);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new UnsupportedMediaTypeException(error.message ?? 'unsupported body encoding');
    default:
      return new HttpException(error.message ?? 'invalid request body', error.status ?? 400);
  }
}

const JSON_TYPES = ['application/json', 'application/*+json'];

/** The request as the middleware sees it on either adapter (Fastify hands middleware node's own request). */
type MiddlewareRequest = IncomingMessage & { originalUrl?: string };

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

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
  private readonly parsers = new Map<string, ReturnType<typeof json>>();

  constructor(
    private readonly limits: BodySizeLimits,
    private readonly rawRoutes: RawBodyRoutes,
  ) {}

  async use(req: MiddlewareRequest, res: ServerResponse, next: () => void): Promise<void> {
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
    if (!typeIs(req, JSON_TYPES)) {
      throw new UnsupportedMediaTypeException('request body must be application/json');
    }
    const limit = this.limits.limitFor(path);
    await new Promise<void>((resolve, reject) => {
      void this.parserFor(limit)(req, res, (error?: unknown) =>
        error ? reject(toHttpException(error, limit)) : resolve(),
      );
    });
    next();
  }

  private parserFor(limit: string): ReturnType<typeof json> {
    let parser = this.parsers.get(limit);
    if (!parser) {
      parser = json({ limit, strict: true });
      this.parsers.set(limit, parser);
    }
    return parser;
  }
}
