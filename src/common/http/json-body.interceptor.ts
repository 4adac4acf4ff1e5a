import { BadRequestException, CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { Reflector } from '@nestjs/core';
import { IncomingMessage } from 'node:http';
import { Observable } from 'rxjs';
import { bodyHandlingOf } from './json-body-limits';
import { readJsonBody } from './json-body-reader';
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
  /** Whether each handler has a `@Body()` parameter, read once from the route's parameter metadata. */
  private readonly takesBody = new WeakMap<object, boolean>();

  constructor(private readonly reflector: Reflector) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const handling = bodyHandlingOf(this.reflector, context.getHandler());
    if (context.getType() === 'http' && handling.kind === 'json') {
      const req = context.switchToHttp().getRequest<IncomingMessage & { body?: unknown }>();
      req.body = await readJsonBody(req, handling.limits);
      if (req.body !== undefined && !this.handlerTakesBody(context)) assertNothingIn(req.body);
    }
    return next.handle();
  }

  private handlerTakesBody(context: ExecutionContext): boolean {
    const handler = context.getHandler();
    let takes = this.takesBody.get(handler);
    if (takes === undefined) {
      // The parameters' metadata as Nest's router and @nestjs/swagger read it: under the method's name, keys
      // `${RouteParamtypes}:${index}`. Only @Body() takes the body (docs/extending.md, "Request bodies").
      const parameters = Reflect.getMetadata(ROUTE_ARGS_METADATA, context.getClass(), methodNameOf(context.getClass(), handler)) as
        | Record<string, unknown>
        | undefined;
      takes = Object.keys(parameters ?? {}).some((key) => key.split(':')[0] === String(RouteParamtypes.BODY));
      this.takesBody.set(handler, takes);
    }
    return takes;
  }
}

/** The name under which the controller (or a class it extends) holds `handler`: a decorator may have renamed the function. */
function methodNameOf(controller: { prototype: object }, handler: object): string {
  for (let prototype: object | null = controller.prototype; prototype !== null && prototype !== Object.prototype; prototype = Object.getPrototypeOf(prototype) as object | null) {
    const name = Object.getOwnPropertyNames(prototype).find((key) => Object.getOwnPropertyDescriptor(prototype, key)?.value === handler);
    if (name !== undefined) return name;
  }
  return (handler as { name: string }).name;
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
