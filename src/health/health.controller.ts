import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { ApiOkResponse, ApiResponse, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckResult, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { SkipRateLimit } from '../common/http/rate-limit.module';
import { SharedRedis } from '../common/redis/shared-redis';
import { ErrorResponseDto } from '../common/errors/error-response.dto';
import { UpstreamTarget } from '../video-proxy/upstream/upstream-target';
import { HealthDto } from './dto/health.dto';
import { Public } from '../auth/authenticated.decorator';

/** Terminus's no-cache header, with our own reply schema (see HealthDto); a failed check is the shared error body. */
const HEALTH_CHECK = { noCache: true, swaggerDocumentation: false };

@ApiTags('health')
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
  @ApiResponse({ status: 503, description: 'Not ready: the message names each check that failed (the database)', type: ErrorResponseDto })
  ready(): Promise<HealthCheckResult> {
    const database = () => this.database.pingCheck('database', { timeout: 2000 });
    // Without Redis the instance still serves correctly (rate limits fail open, auth reads the
    // database), so Redis is reported but never makes it unready (docs/api-rules.md §8).
    const redis = () => ({ redis: { status: 'up' as const, connected: this.redis.available } });
    return this.health.check(this.redis.client ? [database, redis] : [database]).catch(namingWhatIsDown);
  }
}

/** Terminus's 503 says only "Service Unavailable Exception": the message names each check that failed (no internals). */
function namingWhatIsDown(error: unknown): never {
  const result = error instanceof ServiceUnavailableException ? (error.getResponse() as Partial<HealthCheckResult>) : undefined;
  const down = Object.keys(result?.error ?? {});
  if (down.length === 0) throw error;
  throw new ServiceUnavailableException(`not ready: ${down.map((check) => `${check} is down`).join('; ')}`);
}
