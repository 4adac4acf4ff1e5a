import { BadRequestException, Injectable, NestMiddleware } from '@nestjs/common';
import { IncomingMessage } from 'node:http';

type MarkedRequest = IncomingMessage & { undecodablePathSegment?: string };

/** The first path segment that is not valid percent-encoded UTF-8, if any. */
function undecodableSegment(path: string): string | undefined {
  if (!path.includes('%')) return undefined;
  return path.split('/').find((segment) => {
    try {
      decodeURIComponent(segment);
      return false;
    } catch {
      return true;
    }
  });
}

/**
 * Fastify's router answers a path with invalid percent-encoding itself,
 * before any hook runs (so without security headers, CORS, logging or the
 * request's place in the pipeline). Its `rewriteUrl` hook calls this first:
 * the request is marked and routed with its `%` signs taken literally, and
 * RejectUndecodablePathMiddleware answers it with the 400 Express gives.
 */
export function markUndecodablePath(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const queryStart = url.indexOf('?');
  const path = queryStart === -1 ? url : url.slice(0, queryStart);
  const segment = undecodableSegment(path);
  if (segment === undefined) return url;
  (req as MarkedRequest).undecodablePathSegment = segment;
  return path.replace(/%/g, '%25') + (queryStart === -1 ? '' : url.slice(queryStart));
}

@Injectable()
export class RejectUndecodablePathMiddleware implements NestMiddleware {
  use(req: MarkedRequest, _res: unknown, next: () => void): void {
    if (req.undecodablePathSegment !== undefined) {
      throw new BadRequestException(`Failed to decode param '${req.undecodablePathSegment}'`);
    }
    next();
  }
}
