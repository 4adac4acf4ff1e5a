import {
  BadRequestException,
  HttpException,
  Injectable,
  NestMiddleware,
  PayloadTooLargeException,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import { NextFunction, Request, RequestHandler, Response, json } from 'express';
import { BodySizeLimits } from './body-size-limits';

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

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * JSON body parsing as Nest middleware (instead of the adapter's built-in
 * parser) so malformed, oversized and non-JSON bodies reach the global
 * exception filter and get the contract's error body. The size limit is the
 * route's own (see BodySizeLimits).
 */
@Injectable()
export class JsonBodyMiddleware implements NestMiddleware {
  private readonly parsers = new Map<string, RequestHandler>();

  constructor(private readonly limits: BodySizeLimits) {}

  async use(req: Request, res: Response, next: NextFunction): Promise<void> {
    if (hasBody(req) && !req.is(['application/json', 'application/*+json'])) {
      throw new UnsupportedMediaTypeException('request body must be application/json');
    }
    const limit = this.limits.limitFor(req.originalUrl.split('?')[0]);
    await new Promise<void>((resolve, reject) => {
      void this.parserFor(limit)(req, res, (error?: unknown) =>
        error ? reject(toHttpException(error, limit)) : resolve(),
      );
    });
    next();
  }

  private parserFor(limit: string): RequestHandler {
    let parser = this.parsers.get(limit);
    if (!parser) {
      parser = json({ limit, strict: true });
      this.parsers.set(limit, parser);
    }
    return parser;
  }
}
