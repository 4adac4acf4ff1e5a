import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata, Type } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiBearerAuth, ApiExtension, ApiSecurity } from '@nestjs/swagger';
import { HttpRequest } from '../common/http/http-request';
import { ApiErrors } from '../common/openapi/api-errors.decorator';
import { Principal } from './principal';

export const BEARER_SCHEME = 'bearer';

/**
 * Who may call a route. Every route needs a valid bearer token (`token`)
 * unless it says otherwise: the global AccessGuard enforces it, so a route
 * that forgets a decorator is closed, not open.
 */
export type Access = 'public' | 'reader' | 'optional' | 'token' | 'admin';

const ACCESS = 'auth:access';

/**
 * Marks, in the OpenAPI document as it is built, the operations of public
 * routes; the document's post-processing (common/openapi/swagger.ts)
 * removes it and documents every other operation without a security
 * requirement as needing the bearer token, as the guard treats it.
 */
export const PUBLIC_OPERATION = 'x-public-operation';

/** The route's own rule, else its controller's, else the default: a valid token. */
export function accessOf(reflector: Reflector, handler: ReturnType<ExecutionContext['getHandler']>, controller: Type): Access {
  return reflector.getAllAndOverride<Access | undefined>(ACCESS, [handler, controller]) ?? 'token';
}

/** A route's own rule overrides its controller's @Public() mark in the document, as the guard's (accessOf) does. */
const NOT_PUBLIC_OPERATION = ApiExtension(PUBLIC_OPERATION, false);

/** No token needed, and none is read (anonymous reads; routes whose credential is something else, such as a signature). */
export function Public(): MethodDecorator & ClassDecorator {
  return applyDecorators(SetMetadata(ACCESS, 'public'), ApiExtension(PUBLIC_OPERATION, true));
}

/**
 * A public read that shows more to some callers (admins, a publisher's
 * members): no token needed; a valid one identifies the caller; an invalid
 * one (expired, revoked, malformed) is ignored and the caller read as
 * anonymous, so a stale token never breaks a public page.
 */
export function PublicRead(): MethodDecorator & ClassDecorator {
  // The empty requirement beside the bearer one tells OpenAPI clients the token may be left out.
  return applyDecorators(SetMetadata(ACCESS, 'reader'), ApiBearerAuth(BEARER_SCHEME), ApiSecurity({}), NOT_PUBLIC_OPERATION);
}

export interface AuthenticatedOptions {
  /** Only admins may call the route (others get 403). */
  admin?: boolean;
  /** Anonymous callers are let through; a token, when sent, must be valid. */
  optional?: boolean;
}

/**
 * States a route's bearer-token rule and documents it (scheme, 401, 403) in
 * one place. Without any decorator a route already needs a token; this one
 * says so explicitly, makes it admin-only, or makes the token optional.
 */
export function Authenticated(options: AuthenticatedOptions = {}): MethodDecorator & ClassDecorator {
  if (options.optional) {
    // The empty requirement beside the bearer one tells OpenAPI clients the token may be left out.
    return applyDecorators(SetMetadata(ACCESS, 'optional'), ApiBearerAuth(BEARER_SCHEME), ApiSecurity({}), ApiErrors(401), NOT_PUBLIC_OPERATION);
  }
  return applyDecorators(
    SetMetadata(ACCESS, options.admin ? 'admin' : 'token'),
    ApiBearerAuth(BEARER_SCHEME),
    ApiErrors(...(options.admin ? [401, 403] : [401])),
    NOT_PUBLIC_OPERATION,
  );
}

/** The authenticated caller (undefined only on `optional` and `PublicRead` routes called anonymously). */
export const CurrentUser = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Principal | undefined =>
    context.switchToHttp().getRequest<HttpRequest>().user,
);
