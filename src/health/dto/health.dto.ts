import { ApiProperty } from '@nestjs/swagger';
import { HealthCheckStatus, HealthIndicatorResult } from '@nestjs/terminus';

/** Indicator results by name; an indicator may add fields beside `status` (the upstream's `mode`). */
function IndicatorResults(example: Record<string, unknown>): PropertyDecorator {
  return ApiProperty({
    type: 'object',
    additionalProperties: {
      type: 'object',
      required: ['status'],
      properties: { status: { type: 'string', enum: ['up', 'down'] } },
      additionalProperties: true,
    },
    example,
  });
}

const UPSTREAM_UP = { upstream: { status: 'up', mode: 'sandbox' } };

/**
 * A health check's result. Documented here rather than by @nestjs/terminus,
 * whose schema marks `info` and `error` nullable: they are always objects
 * (`error` is `{}` while every indicator is up), and replies carry no nulls.
 */
export class HealthDto {
  @ApiProperty({ enum: ['ok', 'error', 'shutting_down'], example: 'ok' })
  status!: HealthCheckStatus;

  /** The indicators that are up. */
  @IndicatorResults(UPSTREAM_UP)
  info!: HealthIndicatorResult;

  /** The indicators that are down. */
  @IndicatorResults({})
  error!: HealthIndicatorResult;

  /** Every indicator. */
  @IndicatorResults(UPSTREAM_UP)
  details!: HealthIndicatorResult;
}
