import {
  BadRequestException,
  HttpException,
  Injectable,
  NestMiddleware,
  PayloadTooLargeException,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import { NextFunction, Request, RequestHandler, Response, json } from 'express';

export const DEFAULT_BODY_LIMIT = '1mb';

interface BodyParserError {
  type?: string;
  status?: number;
  message?: string;
}

/** The body parser's failures, as exceptions the global filter renders in the contract's shape. */
function toHttpException(error: BodyParserError): HttpException {
  switch (error.type) {
    case 'entity.parse.failed':
      return new BadRequestException('request body is not valid JSON');
    case 'entity.too.large':
      return new PayloadTooLargeException(`request body is larger than ${DEFAULT_BODY_LIMIT}`);
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
 * exception filter and get the contract's error body.
 */
@Injectable()
export class JsonBodyMiddleware implements NestMiddleware {
  private readonly parse: RequestHandler = json({ limit: DEFAULT_BODY_LIMIT, strict: true });

  async use(req: Request, res: Response, next: NextFunction): Promise<void> {
    if (hasBody(req) && !req.is(['application/json', 'application/*+json'])) {
      throw new UnsupportedMediaTypeException('request body must be application/json');
    }
    await new Promise<void>((resolve, reject) => {
      void this.parse(req, res, (error?: unknown) =>
        error ? reject(toHttpException(error)) : resolve(),
      );
    });
    next();
  }
}
