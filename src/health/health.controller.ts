import { Controller, Get } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckResult, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { SkipRateLimit } from '../common/http/rate-limit.module';
import { UpstreamTarget } from '../video-proxy/upstream/upstream-target';

@ApiTags('health')
@SkipRateLimit()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly upstream: UpstreamTarget,
  ) {}

  /** Liveness: the process is up; says which video upstream is in use (remote or the built-in sandbox). */
  @Get()
  @HealthCheck()
  live(): Promise<HealthCheckResult> {
    return this.health.check([() => ({ upstream: { status: 'up', mode: this.upstream.mode } })]);
  }

  /** Readiness: the database answers. 503 when it does not. */
  @Get('ready')
  @HealthCheck()
  ready(): Promise<HealthCheckResult> {
    return this.health.check([() => this.database.pingCheck('database', { timeout: 2000 })]);
  }
}
