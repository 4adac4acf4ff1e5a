import { ExecutionContext, UnauthorizedException } from '@nestjs/common';
import { AppConfig } from '../config/config.module';
import { MetricsTokenGuard } from './metrics-token.guard';

const TOKEN = 'prometheus-scrape-token';

function requestWith(authorization?: string): ExecutionContext {
  const request = { headers: authorization === undefined ? {} : { authorization } };
  return { switchToHttp: () => ({ getRequest: () => request }) } as ExecutionContext;
}

describe('MetricsTokenGuard', () => {
  const guard = new MetricsTokenGuard({ METRICS_TOKEN: TOKEN } as AppConfig);

  it('lets through METRICS_TOKEN as a bearer token, the scheme in any case', () => {
    expect(guard.canActivate(requestWith(`Bearer ${TOKEN}`))).toBe(true);
    expect(guard.canActivate(requestWith(`bearer ${TOKEN}`))).toBe(true);
  });

  it('refuses anything else with a 401', () => {
    for (const header of [undefined, '', 'Bearer', `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(1)}`, `Basic ${TOKEN}`, `Bearer ${TOKEN} extra`]) {
      expect(() => guard.canActivate(requestWith(header))).toThrow(UnauthorizedException);
    }
  });
});
