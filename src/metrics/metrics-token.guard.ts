import { CanActivate, ExecutionContext, Inject, Injectable, UnauthorizedException } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import { appConfig, AppConfig } from '../config/config.module';
import { bearerTokenOf } from '../common/http/bearer-token';
import { HttpRequest } from '../common/http/http-request';

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/**
 * GET /metrics takes METRICS_TOKEN as its bearer token, and nothing else (a
 * user's token is no credential here). Compared as SHA-256 digests in
 * constant time, so neither the token's content nor its length shows in how
 * long a refusal takes.
 */
@Injectable()
export class MetricsTokenGuard implements CanActivate {
  private readonly expected: Buffer;

  constructor(@Inject(appConfig.KEY) config: AppConfig) {
    // The module that mounts this guard exists only when the token is set.
    this.expected = digest(config.METRICS_TOKEN ?? '');
  }

  canActivate(context: ExecutionContext): boolean {
    const presented = bearerTokenOf(context.switchToHttp().getRequest<HttpRequest>().headers.authorization);
    if (presented === undefined || !timingSafeEqual(digest(presented), this.expected)) {
      throw new UnauthorizedException('missing or wrong metrics token (Authorization: Bearer <METRICS_TOKEN>)');
    }
    return true;
  }
}
