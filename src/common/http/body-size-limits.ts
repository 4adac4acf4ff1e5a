import { Injectable } from '@nestjs/common';

export const DEFAULT_BODY_LIMIT = '1mb';

/** Express routes ignoring case and a trailing slash; anything keyed by path must match the same way. */
export function normalisePath(path: string): string {
  return path.toLowerCase().replace(/\/+$/, '') || '/';
}

/**
 * Request body limits by path. Every route gets the small default; a feature
 * that needs more declares it for its own path (at module construction,
 * before any request arrives).
 */
@Injectable()
export class BodySizeLimits {
  private readonly byPath = new Map<string, string>();

  allow(path: string, limit: string): void {
    this.byPath.set(normalisePath(path), limit);
  }

  limitFor(path: string): string {
    return this.byPath.get(normalisePath(path)) ?? DEFAULT_BODY_LIMIT;
  }
}
