import { ExecutionContext, ForbiddenException, Injectable, UnauthorizedException } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import { HttpRequest } from '../common/http/http-request';
import { Principal } from './principal';

const BEARER_HEADER = /^Bearer\s+\S+$/i;

/**
 * Requires `Authorization: Bearer <token>`. Only the header is accepted:
 * passport-http-bearer would also read `access_token` from the query string
 * or body, which leaks tokens into logs and proxies.
 */
@Injectable()
export class BearerAuthGuard extends AuthGuard('bearer') {
  override canActivate(context: ExecutionContext) {
    const header = context.switchToHttp().getRequest<HttpRequest>().headers.authorization;
    if (header === undefined) {
      throw new UnauthorizedException('missing bearer token (Authorization: Bearer <token>)');
    }
    if (!BEARER_HEADER.test(header)) {
      throw new UnauthorizedException('malformed Authorization header; expected "Bearer <token>"');
    }
    return super.canActivate(context);
  }

  override handleRequest<TUser = Principal>(error: unknown, user: TUser | false): TUser {
    if (error instanceof Error) throw error;
    if (error || !user) throw new UnauthorizedException('invalid or revoked access token');
    return user;
  }
}

/** Authenticates when a token is sent (a bad one is still 401); lets anonymous callers through otherwise. */
@Injectable()
export class OptionalBearerAuthGuard extends BearerAuthGuard {
  override canActivate(context: ExecutionContext) {
    const request = context.switchToHttp().getRequest<HttpRequest>();
    return request.headers.authorization === undefined ? true : super.canActivate(context);
  }
}

@Injectable()
export class AdminGuard {
  canActivate(context: ExecutionContext): boolean {
    const user = context.switchToHttp().getRequest<HttpRequest>().user;
    if (!user?.isAdmin) {
      throw new ForbiddenException('this route is for admins only');
    }
    return true;
  }
}
