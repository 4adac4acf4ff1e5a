import {
  applyDecorators,
  CallHandler,
  ExecutionContext,
  Inject,
  Injectable,
  INestApplication,
  NestInterceptor,
  UseInterceptors,
} from '@nestjs/common';
import { ApiHeader, ApiResponse } from '@nestjs/swagger';
import compression from 'compression';
import etag from 'etag';
import { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { Observable, tap } from 'rxjs';
import { appConfig, AppConfig } from '../../config/config.module';

/** Replies smaller than this are sent as they are: compressing them costs more than it saves (CONTRACT §7). */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

/**
 * gzip or br for every reply of 1 KiB or more whose client accepts it.
 * Brotli at the library's default quality (4), which costs about what gzip
 * does.
 */
export function applyCompression(app: INestApplication): void {
  app.use(compression({ threshold: COMPRESSION_THRESHOLD_BYTES }));
}

/** The ETag of a reply body: weak, from the `etag` package, as Express makes it by default. */
export function replyEtag(body: string | Buffer): string {
  return etag(body, { weak: true });
}

/**
 * Cache-Control for public reads (CONTRACT §7): an anonymous request may be
 * cached by anyone for CACHE_MAX_AGE_S; a request with a token only by the
 * caller's own client, since what it sees may depend on who it is
 * (GET /publishers/{id} shows members' e-mails to members). `Vary:
 * Authorization` keeps a shared cache from answering a token holder with the
 * anonymous copy. ETags and 304s come from Express (see http-adapter.ts).
 */
@Injectable()
export class PublicReadCacheInterceptor implements NestInterceptor {
  private readonly maxAge: number;

  constructor(@Inject(appConfig.KEY) config: AppConfig) {
    this.maxAge = config.CACHE_MAX_AGE_S;
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const request = http.getRequest<IncomingMessage>();
    const response = http.getResponse<ServerResponse>();
    // Only once the handler succeeded: an error (a 404 for a node published a moment later) must not be cached.
    return next.handle().pipe(
      tap(() => {
        response.setHeader('Cache-Control', `${hasCredentials(request.headers) ? 'private' : 'public'}, max-age=${this.maxAge}`);
        addVary(response, 'Authorization');
      }),
    );
  }
}

/** Adds to Vary rather than replacing it (CORS has put `Origin` there when it names origins). */
function addVary(response: ServerResponse, field: string): void {
  const current = response.getHeader('Vary');
  const fields = current === undefined ? [] : String(current).split(',').map((name) => name.trim());
  if (!fields.some((name) => name.toLowerCase() === field.toLowerCase())) {
    response.setHeader('Vary', [...fields, field].join(', '));
  }
}

function hasCredentials(headers: IncomingHttpHeaders): boolean {
  return headers.authorization !== undefined;
}

/** A public read: cacheable as above, with ETag and 304, and documented so. */
export function CacheableRead(): MethodDecorator & ClassDecorator {
  return applyDecorators(
    UseInterceptors(PublicReadCacheInterceptor),
    ApiHeader({ name: 'If-None-Match', required: false, description: 'An ETag of an earlier reply: 304 without a body when the reply would be the same.' }),
    ApiResponse({ status: 304, description: 'Not modified: the ETag in If-None-Match still matches.' }),
  );
}
