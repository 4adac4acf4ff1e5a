import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { IncomingMessage } from 'node:http';
import { Observable } from 'rxjs';
import { bodyHandlingOf } from './json-body-limits';
import { readJsonBody } from './json-body-reader';

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
    }
    return next.handle();
  }
}
