import { BadRequestException, CallHandler, ExecutionContext, Injectable, NestInterceptor, Type } from '@nestjs/common';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { Reflector } from '@nestjs/core';
import { IncomingMessage } from 'node:http';
import { Observable } from 'rxjs';
import { isPlainObject } from '../validation/plain-object';
import { StrictValidationPipe, unknownProperty } from '../validation/validation.pipe';
import { bodyHandlingOf } from './json-body-limits';
import { readJsonBody } from './json-body-reader';
import { handlerParameters } from './route-params';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

type Request = IncomingMessage & { body?: unknown; query?: Record<string, unknown> };

/**
 * Reads each request's JSON body, within its route's limits, after the
 * guards: a request without a valid token (or over its rate limit) is
 * answered before a byte of its body is read, and Node discards the body
 * unread. Interceptors run after guards and before pipes, so `@Body()` sees
 * the parsed value. Routes marked `@RawBody()` read their stream themselves.
 *
 * Then refuses (400, naming each) what the route does not take, which would
 * otherwise be silently ignored (CONTRACT §1): a body with anything in it on
 * a route without `@Body()` (`{}` is nothing), and any query parameter on a
 * write (POST, PUT, PATCH, DELETE) without `@Query()`, so `DELETE …?dry_run=true`
 * deletes nothing. Reads that take no query stay lenient, but the registry's,
 * which declare theirs (docs/api-rules.md §1). The refusal also names the
 * problems the global pipe finds in the query or body the route does take:
 * every problem of a request in one message (a route-level pipe's, such as
 * PublishBodyPipe's or NoQuery's, are its own and not asked for).
 */
@Injectable()
export class RequestInputInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly validation: StrictValidationPipe,
  ) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    if (context.getType() !== 'http') return next.handle();
    const req = context.switchToHttp().getRequest<Request>();
    const handling = bodyHandlingOf(this.reflector, context.getHandler());
    const parameters = handlerParameters(context.getClass(), context.getHandler());
    const takes = (kind: RouteParamtypes) => parameters.find((parameter) => parameter.kind === kind);
    const query = takes(RouteParamtypes.QUERY);
    const body = takes(RouteParamtypes.BODY);
    const strayQuery = query || READS.has(req.method ?? '') ? [] : Object.keys(req.query ?? {}).map(unknownProperty);
    // Refused before the body is read when there is nothing in it to report with, or the client waits for a
    // 100 Continue before sending it (docs/request-bodies.md): a refused request's body is not asked for.
    if (strayQuery.length > 0 && (!body || handling.kind !== 'json' || req.headers.expect !== undefined)) {
      throw new BadRequestException(strayQuery.join('; '));
    }
    if (handling.kind === 'json') req.body = await readJsonBody(req, handling.limits);
    const strayBody = body || handling.kind !== 'json' || req.body === undefined ? [] : problemsOfUnwantedBody(req.body);
    if (strayQuery.length > 0 || strayBody.length > 0) {
      const queryProblems = query ? await this.problemsOf(req.query, 'query', query.type) : strayQuery;
      const bodyProblems = body ? await this.problemsOf(req.body, 'body', body.type) : strayBody;
      throw new BadRequestException([...queryProblems, ...bodyProblems].join('; '));
    }
    return next.handle();
  }

  /** What the global pipe refuses in a part the route takes (none when it has no class to check it by). */
  private async problemsOf(value: unknown, type: 'query' | 'body', metatype: Type | undefined): Promise<string[]> {
    try {
      await this.validation.transform(value, { type, metatype });
      return [];
    } catch (error) {
      if (error instanceof BadRequestException) return [error.message];
      throw error;
    }
  }
}

/** A route that takes no body accepts none but `{}` (what some clients send for nothing). */
function problemsOfUnwantedBody(body: unknown): string[] {
  if (!isPlainObject(body)) return ['this route takes no request body'];
  return Object.keys(body).map(unknownProperty);
}
