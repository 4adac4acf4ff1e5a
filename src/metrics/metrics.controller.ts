import { Controller, Get, Header, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { register } from 'prom-client';
import { Public } from '../auth/authenticated.decorator';
import { ErrorResponseDto } from '../common/errors/error-response.dto';
import { NeverCached } from '../common/http/http-caching';
import { SkipRateLimit } from '../common/http/rate-limit.module';
import { MetricsTokenGuard } from './metrics-token.guard';

export const METRICS_PATH = 'metrics';
/** The OpenAPI security scheme of METRICS_TOKEN (common/openapi/swagger.ts). */
export const METRICS_SCHEME = 'metrics';

/**
 * The scrape, as @willsoto/nestjs-prometheus's own controller answers it
 * (prom-client's registry in the text format), declared here to carry its
 * access rule and documentation (the library's documented way to customise
 * the route). Mounted only when METRICS_TOKEN is set (MetricsModule).
 */
@ApiTags('metrics')
// Not a user's route: no user token is read (AccessGuard), METRICS_TOKEN is checked instead.
@Public()
@UseGuards(MetricsTokenGuard)
// Scrapers, like health probes, are never throttled; a refusal costs one hash.
@SkipRateLimit()
@Controller(METRICS_PATH)
export class MetricsController {
  @Get()
  @Header('Content-Type', register.contentType)
  @NeverCached()
  @ApiOperation({
    summary: 'Prometheus metrics',
    description:
      'The figures of this instance in the Prometheus text format: HTTP requests by route template, the database pool, ' +
      'the upstream video API, credits, client callbacks, the registry, the read cache, Redis and the Node process ' +
      '(deploy/README.md). Served only when `METRICS_TOKEN` is set (otherwise the route does not exist: 404), to ' +
      'requests carrying it as a bearer token. Scrapes are not counted in the request figures.',
  })
  @ApiSecurity(METRICS_SCHEME)
  @ApiOkResponse({ description: 'The metrics', content: { [register.contentType]: { schema: { type: 'string' } } } })
  @ApiResponse({ status: 401, description: 'Missing or wrong metrics token', type: ErrorResponseDto })
  scrape(): Promise<string> {
    return register.metrics();
  }
}
