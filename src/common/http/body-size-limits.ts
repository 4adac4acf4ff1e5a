import { Injectable } from '@nestjs/common';

export const DEFAULT_BODY_LIMIT = '1mb';

/**
 * Request body limits by path. Every route gets the small default; a feature
 * that needs more declares it for its own path (at module construction,
 * before any request arrives).
 */
@Injectable()
export class BodySizeLimits {
  private readonly byPath = new Map<string, string>();

  allow(path: string, limit: string): void {
    this.byPath.set(path, limit);
  }

  limitFor(path: string): string {
    return this.byPath.get(path) ?? DEFAULT_BODY_LIMIT;
  }
}
