import { ExecutionContext, ForbiddenException, Injectable, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { HttpRequest } from '../common/http/http-request';
import { accessOf } from './authenticated.decorator';
import { Principal } from './principal';

const BEARER_HEADER = /^Bearer\s+\S+$/i;

/**
 * The global guard: every route needs `Authorization: Bearer <token>` unless
 * it is marked `@Public()`, `@PublicRead()` or `@Authenticated({ optional: true })` (see
 * authenticated.decorator.ts). Only the header is accepted:
 * passport-http-bearer would also read `access_token` from the query string
 * or body, which leaks tokens into logs and proxies.
 */
@Injectable()
export class AccessGuard extends AuthGuard('bearer') {
  constructor(private readonly reflector: Reflector) {
    super();
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const access = accessOf(this.reflector, context.getHandler(), context.getClass());
    const request = context.switchToHttp().getRequest<HttpRequest>();
    const header = request.headers.authorization;
    if (access === 'public' || ((access === 'optional' || access === 'reader') && header === undefined)) {
      return true;
    }
    if (access === 'reader') return this.identifyIfValid(context, request);
    if (header === undefined) {
      throw new UnauthorizedException('missing bearer token (Authorization: Bearer <token>)');
    }
    if (!BEARER_HEADER.test(header)) {
      throw new UnauthorizedException('malformed Authorization header; expected "Bearer <token>"');
    }
    await super.canActivate(context);
    if (access === 'admin' && !request.user?.isAdmin) {
      throw new ForbiddenException('this route is for admins only');
    }
    return true;
  }

  /** A public read with a token: the caller it names, or anonymous when it names none. */
  private async identifyIfValid(context: ExecutionContext, request: HttpRequest): Promise<true> {
    try {
      if (BEARER_HEADER.test(request.headers.authorization ?? '')) await super.canActivate(context);
    } catch (error) {
      if (!(error instanceof UnauthorizedException)) throw error;
    }
    return true;
  }

  override handleRequest<TUser = Principal>(error: unknown, user: TUser | false): TUser {
    if (error instanceof Error) throw error;
    if (error || !user) throw new UnauthorizedException('invalid or revoked access token');
    return user;
  }
}
