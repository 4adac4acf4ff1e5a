import { applyDecorators, createParamDecorator, ExecutionContext, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiSecurity } from '@nestjs/swagger';
import { HttpRequest } from '../common/http/http-request';
import { ApiErrors } from '../common/openapi/api-errors.decorator';
import { AdminGuard, BearerAuthGuard, OptionalBearerAuthGuard } from './bearer-auth.guard';
import { Principal } from './principal';

export const BEARER_SCHEME = 'bearer';

export interface AuthenticatedOptions {
  /** Only admins may call the route (others get 403). */
  admin?: boolean;
  /** Anonymous callers are let through; a token, when sent, must be valid. */
  optional?: boolean;
}

/** Guards a route with the bearer token and documents that (scheme, 401, 403) in OpenAPI, in one place. */
export function Authenticated(options: AuthenticatedOptions = {}): MethodDecorator & ClassDecorator {
  if (options.optional) {
    // The empty requirement beside the bearer one tells OpenAPI clients the token may be left out.
    return applyDecorators(UseGuards(OptionalBearerAuthGuard), ApiBearerAuth(BEARER_SCHEME), ApiSecurity({}), ApiErrors(401));
  }
  const guards = options.admin ? [BearerAuthGuard, AdminGuard] : [BearerAuthGuard];
  return applyDecorators(
    UseGuards(...guards),
    ApiBearerAuth(BEARER_SCHEME),
    ApiErrors(...(options.admin ? [401, 403] : [401])),
  );
}

/** The authenticated caller (undefined only on `optional` routes called anonymously). */
export const CurrentUser = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Principal | undefined =>
    context.switchToHttp().getRequest<HttpRequest>().user,
);
