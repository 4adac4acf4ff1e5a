import { BadRequestException, HttpException, Injectable, PayloadTooLargeException, UnsupportedMediaTypeException } from '@nestjs/common';
import { json } from 'body-parser';
import { IncomingMessage, ServerResponse } from 'node:http';
import typeIs from 'type-is';

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

export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Reads and parses a JSON request body with the rules and messages every
 * route shares (415 for another content type, 413 over `limit`, 400 for
 * malformed JSON). JsonBodyMiddleware reads every body with it; a raw-body
 * route that must check something before reading (the upstream callback's
 * signature) reads its own with it afterwards.
 */
@Injectable()
export class JsonBodyReader {
  private readonly parsers = new Map<string, ReturnType<typeof json>>();

  /** The parsed body (undefined when there is none); also left on `req.body`, where the adapters look for it. */
  async read(req: IncomingMessage, limit: string): Promise<unknown> {
    if (!hasBody(req)) return undefined;
    if (!typeIs(req, JSON_TYPES)) {
      throw new UnsupportedMediaTypeException('request body must be application/json');
    }
    await new Promise<void>((resolve, reject) => {
      // body-parser never writes to the response; it only wants one in its signature.
      void this.parserFor(limit)(req, undefined as unknown as ServerResponse, (error?: unknown) =>
        error ? reject(toHttpException(error, limit)) : resolve(),
      );
    });
    return (req as IncomingMessage & { body?: unknown }).body;
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
