import { ConfigType, registerAs } from '@nestjs/config';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, IsUrl, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { IntegerVariable, toInteger, validateVariables } from '../config/environment';
import { parsePriceTable, PriceTable } from './pricing';
import { VIDEO_MODELS, VideoModel } from './video-models';

export class VideoEnvironment {
  /** The upstream video API; unset: the built-in sandbox upstream. */
  @IsOptional()
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true, require_tld: false })
  VIDEO_UPSTREAM_URL?: string;

  /** Required with VIDEO_UPSTREAM_URL. */
  @ValidateIf((env: VideoEnvironment) => env.VIDEO_UPSTREAM_URL !== undefined)
  @IsString()
  @MaxLength(4096)
  VIDEO_UPSTREAM_API_KEY?: string;

  @IntegerVariable(1, 600_000)
  VIDEO_UPSTREAM_TIMEOUT_MS = 30000;

  /** The model used when a request names none. */
  @IsOptional()
  @IsIn(VIDEO_MODELS)
  VIDEO_DEFAULT_MODEL: VideoModel = 'videoq3-pro';

  /** JSON object of credits per second of video by model, merged over the defaults. */
  @IsOptional()
  @IsString()
  VIDEO_PRICE_TABLE?: string;

  /** Percentage of the normal price charged for off_peak tasks. */
  @IntegerVariable(0, 100)
  VIDEO_OFF_PEAK_PERCENT = 50;

  /** `true` lets client callbacks go to loopback and private addresses (for development and tests). */
  @IsOptional()
  @IsIn(['true', 'false'])
  CALLBACK_ALLOW_PRIVATE: 'true' | 'false' = 'false';

  /** Delay before the first retry of a failed client callback; it doubles per attempt, capped at 10 minutes. */
  @IntegerVariable(1, 600_000)
  CALLBACK_RETRY_BASE_MS = 1000;

  /**
   * How long past VIDEO_UPSTREAM_TIMEOUT_MS an open reservation must be before
   * the recovery sweep takes its create for dead: room for the transactions
   * around the upstream call and for clocks that differ between instances.
   * With the sweep interval (both at most 30 s), a reservation is released
   * within VIDEO_UPSTREAM_TIMEOUT_MS + 60 s (docs/api-rules.md §8).
   */
  @IntegerVariable(1000, 30_000)
  VIDEO_RESERVATION_GRACE_MS = 15_000;

  /** How often every instance sweeps for reservations of interrupted creates (and once at startup). */
  @IntegerVariable(100, 30_000)
  VIDEO_RECOVERY_SWEEP_MS = 15_000;

  /**
   * How soon a running task is first asked about in the background, and the
   * shortest time between two such checks: the interval grows with the
   * task's age (a tenth of it), up to 10 minutes (docs/api-rules.md §4.2).
   * 0: this instance checks nothing, and the tasks it creates are never
   * checked in the background; they learn their end from upstream callbacks
   * and clients' polls alone.
   */
  @IsOptional()
  @Transform(toInteger)
  // 0, or a period the database and the upstream can bear (as the recovery sweep's).
  @ValidateIf((environment: VideoEnvironment) => environment.VIDEO_STATUS_POLL_MS !== 0)
  @IsInt()
  @Min(100)
  @Max(600_000)
  VIDEO_STATUS_POLL_MS = 15_000;

  /** Largest video or cover kept from a finished task, in bytes (1 GiB by default; docs/api-rules.md §4.4). */
  @IntegerVariable(1)
  VIDEO_RESULT_MAX_BYTES = 1_073_741_824;

  /** How long a signed link to a kept result stays valid, in seconds (7 days by default). */
  @IntegerVariable(1, 31_536_000)
  VIDEO_RESULT_LINK_TTL_S = 604_800;

  /** Kept results older than this many days are deleted; 0 keeps them for good. */
  @IntegerVariable(0, 36_500)
  VIDEO_RESULT_RETENTION_DAYS = 30;

  /** Parsed form of VIDEO_PRICE_TABLE. */
  prices!: PriceTable;
}

/** The video proxy's configuration, validated when the application starts. */
export const videoConfig = registerAs('video', () =>
  validateVariables(VideoEnvironment, process.env, {
    VIDEO_PRICE_TABLE: (env) => {
      env.prices = parsePriceTable(env.VIDEO_PRICE_TABLE);
    },
  }),
);
export type VideoConfig = ConfigType<typeof videoConfig>;
