import { BadRequestException, CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { Reflector } from '@nestjs/core';
import { IncomingMessage } from 'node:http';
import { Observable } from 'rxjs';
import { bodyHandlingOf } from './json-body-limits';
import { readJsonBody } from './json-body-reader';
import { declaredParams } from './route-params';
import { isPlainObject } from '../validation/plain-object';
import { unknownProperty } from '../validation/validation.pipe';

/**
 * Reads each request's JSON body, within its route's limits, after the
 * guards: a request without a valid token (or over its rate limit) is
 * answered before a byte of its body is read, and Node discards the body
 * unread. Interceptors run after guards and before pipes, so `@Body()` sees
 * the parsed value. Routes marked `@RawBody()` read their stream themselves.
 */
@Injectable()
export class JsonBodyInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const handling = bodyHandlingOf(this.reflector, context.getHandler());
    if (context.getType() === 'http' && handling.kind === 'json') {
      const req = context.switchToHttp().getRequest<IncomingMessage & { body?: unknown }>();
      req.body = await readJsonBody(req, handling.limits);
      // Only @Body() takes the body (docs/extending.md, "Request bodies").
      if (req.body !== undefined && !declaredParams(context.getClass(), context.getHandler()).has(RouteParamtypes.BODY)) assertNothingIn(req.body);
    }
    return next.handle();
  }

}

/**
 * A route that takes no body accepts none but `{}` (what some clients send
 * for nothing): anything in it would be silently ignored, which the contract
 * refuses as it refuses an unknown field (400 naming each).
 */
function assertNothingIn(body: unknown): void {
  if (!isPlainObject(body)) throw new BadRequestException('this route takes no request body');
  const fields = Object.keys(body);
  if (fields.length > 0) throw new BadRequestException(fields.map(unknownProperty).join('; '));
}
