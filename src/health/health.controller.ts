import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckResult, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { SkipRateLimit } from '../common/http/rate-limit.module';
import { SharedRedis } from '../common/redis/shared-redis';
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
    private readonly redis: SharedRedis,
  ) {}

  /** Liveness: the process is up; says which video upstream is in use (remote or the built-in sandbox). */
  @Get()
  @HealthCheck(HEALTH_CHECK)
  @ApiOkResponse({ type: HealthDto, description: 'Every indicator is up' })
  live(): Promise<HealthCheckResult> {
    return this.health.check([() => ({ upstream: { status: 'up', mode: this.upstream.mode } })]);
  }

  /** Readiness: the database answers. 503 when it does not; `redis.connected` reports Redis when REDIS_URL is set. */
  @Get('ready')
  @HealthCheck(HEALTH_CHECK)
  @ApiOkResponse({ type: HealthDto, description: 'Every indicator is up' })
  ready(): Promise<HealthCheckResult> {
    const database = () => this.database.pingCheck('database', { timeout: 2000 });
    if (!this.redis.client) return this.health.check([database]);
    // Without Redis the instance still serves correctly (rate limits fail open, auth reads the
    // database), so Redis is reported but never makes it unready (docs/api-rules.md §8).
    return this.health.check([database, () => ({ redis: { status: 'up', connected: this.redis.available } })]);
  }
}
