import { ExecutionContext, ForbiddenException, Injectable, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { bearerTokenOf } from '../common/http/bearer-token';
import { HttpRequest } from '../common/http/http-request';
import { accessOf } from './authenticated.decorator';
import { Principal } from './principal';

/**
 * The global guard: every route needs `Authorization: Bearer <token>` unless
 * it is marked `@Public()`, `@PublicRead()` or `@Authenticated({ optional: true })` (see
 * authenticated.decorator.ts). Only the header is read: see getRequest.
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
    if (bearerTokenOf(header) === undefined) {
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
      if (bearerTokenOf(request.headers.authorization) !== undefined) await super.canActivate(context);
    } catch (error) {
      if (!(error instanceof UnauthorizedException)) throw error;
    }
    return true;
  }

  /**
   * What passport-http-bearer reads: only the header's token. Given the request, it would also read an
   * `access_token` query or body field (a token in a URL leaks into logs and proxies; beside a header it
   * fails the request), and it splits the header on a single space.
   */
  override getRequest(context: ExecutionContext): Pick<HttpRequest, 'headers'> {
    const token = bearerTokenOf(context.switchToHttp().getRequest<HttpRequest>().headers.authorization);
    return { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } };
  }

  /** Passport's verdict; the caller goes on the real request (passport only saw getRequest's). */
  override handleRequest<TUser = Principal>(error: unknown, user: TUser | false, _info: unknown, context: ExecutionContext): TUser {
    if (error instanceof Error) throw error;
    if (error || !user) throw new UnauthorizedException('invalid or revoked access token');
    Object.assign(context.switchToHttp().getRequest<HttpRequest>(), { user });
    return user;
  }
}
