import { Injectable } from '@nestjs/common';
import { normalisePath } from './body-size-limits';

/** Methods whose body a route may take unparsed (uploads are PUT today). */
export type RawBodyMethod = 'PUT' | 'POST' | 'PATCH';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `/a/:id/b` → a pattern where `:id` is exactly one non-empty path segment; matched against normalised paths. */
function compile(pattern: string): RegExp {
  const segments = normalisePath(pattern)
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : escapeRegExp(segment)));
  return new RegExp(`^${segments.join('/')}$`);
}

/**
 * Routes whose request body reaches the handler as Node's unread stream
 * (archive uploads: up to ARCHIVE_MAX_BYTES of zip, hashed while it streams
 * to disk), instead of going through JsonBodyMiddleware, which parses JSON
 * and refuses every other body with 415. A feature declares its routes at
 * module construction, before any request arrives; the handler then reads
 * `nodeRequest(req)` itself, on either adapter. Paths match as routes do:
 * ignoring case and a trailing slash.
 */
@Injectable()
export class RawBodyRoutes {
  private readonly routes: { method: RawBodyMethod; path: RegExp }[] = [];

  allow(method: RawBodyMethod, pattern: string): void {
    this.routes.push({ method, path: compile(pattern) });
  }

  /** `path` without its query string. */
  isRaw(method: string | undefined, path: string): boolean {
    const normalised = normalisePath(path);
    return this.routes.some((route) => route.method === method?.toUpperCase() && route.path.test(normalised));
  }
}
