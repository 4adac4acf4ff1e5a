import {
  applyDecorators,
  CallHandler,
  ExecutionContext,
  Header,
  Inject,
  Injectable,
  INestApplication,
  NestInterceptor,
  SetMetadata,
  UseInterceptors,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiExtension } from '@nestjs/swagger';
import compression from 'compression';
import { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { concatMap, map, Observable, of, tap } from 'rxjs';
import { appConfig, AppConfig } from '../../config/config.module';
import { requestOrigin } from './http-request';
import { PublicReadCache } from './public-read-cache';

/** Replies smaller than this are sent as they are: compressing them costs more than it saves (docs/api-rules.md §7). */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

/**
 * gzip or br for every reply of 1 KiB or more whose client accepts it.
 * Brotli at the library's default quality (4), which costs about what gzip
 * does.
 */
export function applyCompression(app: INestApplication): void {
  app.use(compression({ threshold: COMPRESSION_THRESHOLD_BYTES }));
}

/** How long this route's replies may be served from the read cache; unset: CACHE_MAX_AGE_S. */
const SERVER_TTL = 'http:read-cache-ttl-ms';
/** The route takes `latest` (see CacheableReadOptions.latestParam). */
const LATEST_PARAM = 'http:read-cache-latest-param';

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * The request as the read cache keys it: the path as sent and the query
 * sorted, so parameter order does not matter, without `latest` on a route
 * that takes it (it changes where the answer comes from, not what it is).
 * On another route `latest` stays in the key, like any parameter the route
 * refuses: its 400 is never cached, nor answered by a cached 200.
 */
function cacheKey(url: URL, takesLatest: boolean): string {
  const params = new URLSearchParams(url.searchParams);
  // Only a value the route accepts: an invalid one stays in the key, so its 400 is never answered by a cached 200.
  const latest = params.getAll('latest');
  if (takesLatest && latest.length === 1 && (latest[0] === 'true' || latest[0] === 'false')) params.delete('latest');
  params.sort();
  return `${url.pathname}?${params.toString()}`;
}

/**
 * Public reads (docs/api-rules.md §7). Cache-Control: an anonymous request may be
 * cached by anyone for CACHE_MAX_AGE_S; a request with a token only by the
 * caller's own client, since what it sees may depend on who it is
 * (GET /publishers/{id} shows members' e-mails to members). `Vary:
 * Authorization` keeps a shared cache from answering a token holder with the
 * anonymous copy; `Accept-Encoding`, a client with the other encoding. ETags and 304s come from Express (see http-adapter.ts).
 * Anonymous replies are also kept serialized in the PublicReadCache and
 * served from it; a hit and a miss send the same bytes (the reply is
 * serialized here either way), so their ETags agree.
 */
@Injectable()
export class PublicReadCacheInterceptor implements NestInterceptor {
  private readonly maxAge: number;
  /** Without PUBLIC_BASE_URL a reply's links are on the request's own origin, so the origin is part of the key. */
  private readonly keyedByOrigin: boolean;

  constructor(
    @Inject(appConfig.KEY) config: AppConfig,
    private readonly cache: PublicReadCache,
    private readonly reflector: Reflector,
  ) {
    this.maxAge = config.CACHE_MAX_AGE_S;
    this.keyedByOrigin = config.PUBLIC_BASE_URL === undefined;
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const request = http.getRequest<IncomingMessage>();
    const response = http.getResponse<ServerResponse>();
    const anonymous = !hasCredentials(request.headers);
    // Only once the handler succeeded: an error (a 404 for a node published a moment later) must not be cached.
    const setHeaders = () => {
      response.setHeader('Cache-Control', `${anonymous ? 'public' : 'private'}, max-age=${this.maxAge}`);
      addVary(response, 'Authorization');
      // compression adds it only to a body it may compress; a 304 must carry the Vary of its 200 (RFC 9110 §15.4.5).
      addVary(response, 'Accept-Encoding');
    };
    if (!anonymous) return next.handle().pipe(tap(setHeaders));
    const url = new URL(request.url ?? '/', 'http://cache.key');
    const takesLatest = this.reflector.get<boolean | undefined>(LATEST_PARAM, context.getHandler()) === true;
    // A space cannot be in an origin nor in a path as sent, so no two requests' parts run together into one key.
    const key = `${this.keyedByOrigin ? requestOrigin(request) : ''} ${cacheKey(url, takesLatest)}`;
    // `latest=true` asks for the database's answer (docs/api-rules.md §9.1), which then refreshes the cached one.
    const cached = takesLatest && url.searchParams.get('latest') === 'true' ? undefined : this.cache.get(key);
    if (cached !== undefined) {
      setHeaders();
      response.setHeader('Content-Type', JSON_CONTENT_TYPE);
      return of(cached);
    }
    const generation = this.cache.generation;
    const routeTtlMs = this.reflector.get<number | undefined>(SERVER_TTL, context.getHandler());
    const ttlMs = Math.min(routeTtlMs ?? Infinity, this.cache.defaultTtlMs);
    return next.handle().pipe(
      map((reply) => {
        const text = JSON.stringify(reply);
        this.cache.store(key, text, generation, ttlMs);
        setHeaders();
        response.setHeader('Content-Type', JSON_CONTENT_TYPE);
        return text;
      }),
    );
  }
}

/** Adds to Vary rather than replacing it (CORS has put `Origin` there when it names origins). */
export function addVary(response: ServerResponse, field: string): void {
  const current = response.getHeader('Vary');
  const fields = current === undefined ? [] : String(current).split(',').map((name) => name.trim());
  if (!fields.some((name) => name.toLowerCase() === field.toLowerCase())) {
    response.setHeader('Vary', [...fields, field].join(', '));
  }
}

function hasCredentials(headers: IncomingHttpHeaders): boolean {
  return headers.authorization !== undefined;
}

export interface CacheableReadOptions {
  /**
   * How long the read cache may serve this route's replies, when it must be
   * shorter than CACHE_MAX_AGE_S (a single node's downloads show within 2 s);
   * never longer (CACHE_MAX_AGE_S=0 turns the cache off).
   */
  serverTtlMs?: number;
  /** The route takes `latest`: `true` answers from the database (and refreshes the cached reply). */
  latestParam?: boolean;
}

/** Marks, in the OpenAPI document as it is built, the operations that never answer 304 (see common/openapi/swagger.ts). */
export const NEVER_CACHED_OPERATION = 'x-never-cached-operation';

/** A public read: cacheable as above, with ETag and 304 (documented for every GET by common/openapi/swagger.ts). */
export function CacheableRead(options: CacheableReadOptions = {}): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ...(options.serverTtlMs === undefined ? [] : [SetMetadata(SERVER_TTL, options.serverTtlMs)]),
    ...(options.latestParam ? [SetMetadata(LATEST_PARAM, true)] : []),
    UseInterceptors(PublicReadCacheInterceptor),
  );
}

/**
 * Conditional headers are dropped from a request to a NeverCached route: no
 * cache keeps its replies, so there is nothing to revalidate, and every GET
 * gets the full reply (Express would otherwise answer a matching
 * If-None-Match with a 304, after the handler has run).
 */
@Injectable()
export class UnconditionalInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const { headers } = context.switchToHttp().getRequest<IncomingMessage>();
    delete headers['if-none-match'];
    delete headers['if-modified-since'];
    return next.handle();
  }
}

/** A reply no cache may keep (Cache-Control: no-store), never a 304: for replies whose GET has an effect or must be current. */
export function NeverCached(): MethodDecorator {
  return applyDecorators(Header('Cache-Control', 'no-store'), UseInterceptors(UnconditionalInterceptor), ApiExtension(NEVER_CACHED_OPERATION, true));
}

/** After each successful write (any method but GET and HEAD) of the route: public content changed (see PublicReadCache). */
@Injectable()
export class PublicContentWriteInterceptor implements NestInterceptor {
  constructor(private readonly cache: PublicReadCache) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const { method } = context.switchToHttp().getRequest<IncomingMessage>();
    if (method === 'GET' || method === 'HEAD') return next.handle();
    return next.handle().pipe(
      concatMap(async (reply: unknown) => {
        await this.cache.contentChanged();
        return reply;
      }),
    );
  }
}

/**
 * Marks a controller (or route) whose writes change what public reads show:
 * each successful write empties the read cache on every instance before its
 * reply goes out, so the writer's next read, and within moments everyone's,
 * sees it.
 */
export function WritesPublicContent(): MethodDecorator & ClassDecorator {
  return UseInterceptors(PublicContentWriteInterceptor);
}
