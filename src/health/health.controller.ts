import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckResult, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { SkipRateLimit } from '../common/http/rate-limit.module';
import { ApiErrors } from '../common/openapi/api-errors.decorator';
import { UpstreamTarget } from '../video-proxy/upstream/upstream-target';
import { HealthDto } from './dto/health.dto';
import { Public } from '../auth/authenticated.decorator';

/** Terminus's no-cache header, with our own reply schema (see HealthDto); a failed check is the shared error body. */
const HEALTH_CHECK = { noCache: true, swaggerDocumentation: false };

@ApiTags('health')
@ApiErrors(503)
@SkipRateLimit()
// Probes for orchestrators and load balancers, which carry no token.
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly upstream: UpstreamTarget,
  ) {}

  /** Liveness: the process is up; says which video upstream is in use (remote or the built-in sandbox). */
  @Get()
  @HealthCheck(HEALTH_CHECK)
  @ApiOkResponse({ type: HealthDto, description: 'Every indicator is up' })
  live(): Promise<HealthCheckResult> {
    return this.health.check([() => ({ upstream: { status: 'up', mode: this.upstream.mode } })]);
  }

  /** Readiness: the database answers. 503 when it does not. */
  @Get('ready')
  @HealthCheck(HEALTH_CHECK)
  @ApiOkResponse({ type: HealthDto, description: 'Every indicator is up' })
  ready(): Promise<HealthCheckResult> {
    return this.health.check([() => this.database.pingCheck('database', { timeout: 2000 })]);
  }
}
