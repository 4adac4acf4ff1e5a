import { Injectable, OnApplicationBootstrap, Type } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { match } from 'path-to-regexp';
import { routesOf } from './route-table';

/**
 * The methods a path is served with, for the 405 a request gets when its
 * path exists but not with its method (RFC 9110 §15.5.6; Express alone
 * answers 404). Paths are matched as Express matches them, with the same
 * library (path-to-regexp), its defaults included: case-insensitive, a
 * trailing slash allowed.
 */
@Injectable()
export class AllowedMethods implements OnApplicationBootstrap {
  private paths: { matches: (path: string) => boolean; methods: Set<string> }[] = [];

  constructor(private readonly discovery: DiscoveryService) {}

  onApplicationBootstrap(): void {
    const controllers = this.discovery.getControllers().flatMap(({ metatype }) => (metatype ? [metatype as Type] : []));
    const byPath = new Map<string, Set<string>>();
    for (const { method, path } of routesOf(controllers)) {
      byPath.set(path, (byPath.get(path) ?? new Set()).add(method));
      // Express answers HEAD with a GET route.
      if (method === 'GET') byPath.get(path)?.add('HEAD');
    }
    this.paths = [...byPath].map(([path, methods]) => {
      // Not decoded: only whether it matches counts (a malformed escape must not throw).
      const matcher = match(path, { decode: false });
      return { matches: (candidate: string) => matcher(candidate) !== false, methods };
    });
  }

  /** The methods `path` (no query) is served with, sorted; none for a path no route has. */
  of(path: string): string[] {
    const methods = new Set(this.paths.filter(({ matches }) => matches(path)).flatMap(({ methods }) => [...methods]));
    return [...methods].sort();
  }
}
