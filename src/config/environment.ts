import { applyDecorators } from '@nestjs/common';
import { ClassConstructor, plainToInstance, Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, IsUrl, Matches, Max, Min, validateSync } from 'class-validator';
import { failedConstraintMessages } from '../common/validation/constraint-messages';
import { ProxyTrust, parseTrustProxy } from '../common/http/trust-proxy';
import { DatabaseTarget, parseDatabaseUrl } from '../database/database-url';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Integer variables arrive as strings; anything that is not a plain integer stays a string and fails `@IsInt`. */
export const toInteger = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;

/** An optional integer variable from `min` to `max`, given as a plain integer. */
export function IntegerVariable(min: number, max = Number.MAX_SAFE_INTEGER): PropertyDecorator {
  return applyDecorators(IsOptional(), Transform(toInteger), IsInt(), Min(min), Max(max));
}

export class EnvironmentError extends Error {}

/** Variables whose whole value is a secret, by name. */
const SECRET_VARIABLE = /(TOKEN|KEY|SECRET|PASSWORD)$/;
/** A URL's password: `scheme://user:` then anything up to the last `@` (as ioredis splits it). */
const URL_PASSWORD = /^([a-z][a-z0-9+.-]*:\/\/[^:/@]*):.*@/i;
/** A URL's query values (`?password=…`). */
const QUERY_VALUE = /([?&][^=&#]*=)[^&#]*/g;

/** A refused value as a startup error shows it: never a secret, nor a URL's password (logs never hold one, CONTRACT §5). */
export function shownValue(variable: string, value: unknown): string {
  if (SECRET_VARIABLE.test(variable)) return 'a value not shown: it is a secret';
  return JSON.stringify(typeof value === 'string' ? value.replace(URL_PASSWORD, '$1:***@').replace(QUERY_VALUE, '$1***') : value);
}

/**
 * Validates environment variables against a class of class-validator rules.
 * `derive` turns raw values into parsed ones and throws with a reason, which
 * is reported against the variable it names. Every problem is collected, so
 * one startup failure lists them all.
 */
export function validateVariables<T extends object>(
  schema: ClassConstructor<T>,
  raw: Record<string, unknown>,
  derive: Partial<Record<keyof T & string, (env: T) => void>> = {},
): T {
  // An empty variable (`FOO=` in a compose file) means unset.
  const present = Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== ''));
  const env = plainToInstance(schema, present, { exposeDefaultValues: true });
  const problems = validateSync(env).map(
    (error) => `${error.property}: ${failedConstraintMessages(error.constraints, error.value).join(', ')} (got ${shownValue(error.property, error.value)})`,
  );
  for (const [variable, step] of Object.entries(derive) as [string, (env: T) => void][]) {
    try {
      step(env);
    } catch (error) {
      problems.push(`${variable}: ${(error as Error).message}`);
    }
  }
  if (problems.length > 0) {
    throw new EnvironmentError(`Invalid configuration: ${problems.join('; ')}`);
  }
  return env;
}

/**
 * The variables every part of the service shares. Features with their own
 * variables validate them the same way, in their own module.
 */
export class Environment {
  @IntegerVariable(0, 65535)
  PORT = 3000;

  /** Unset: SQLite file ./data/registry.db. Otherwise sqlite:<path>, sqlite::memory: or postgres://... */
  @IsOptional()
  DATABASE_URL?: string;

  @IsOptional()
  @IsIn(LOG_LEVELS)
  LOG_LEVEL: LogLevel = 'info';

  /** Requests per window per token and per IP; 0 disables rate limiting. */
  @IntegerVariable(0)
  THROTTLE_LIMIT = 600;

  @IntegerVariable(1)
  THROTTLE_TTL_S = 60;

  /** Origins allowed to call the API from a browser: comma-separated, or `*`. Unset: no CORS. */
  @IsOptional()
  @Matches(/^(\*|https?:\/\/[^,\s]+(,\s*https?:\/\/[^,\s]+)*)$/, {
    message: 'CORS_ORIGINS must be * or a comma-separated list of http(s) origins',
  })
  CORS_ORIGINS?: string;

  /**
   * This service's public address (it may end in a path prefix). Shared: the
   * video proxy hands the upstream {PUBLIC_BASE_URL}/proxy/video/callbacks/upstream,
   * and archive download URLs start with it.
   */
  @IsOptional()
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true, require_tld: false })
  PUBLIC_BASE_URL?: string;

  /** Longest time a client may take to send a whole request. */
  @IntegerVariable(1000, 600_000)
  REQUEST_TIMEOUT_MS = 60_000;

  /** How long anonymous public reads may be cached (Cache-Control max-age), in seconds. */
  @IntegerVariable(0, 31_536_000)
  CACHE_MAX_AGE_S = 60;

  /**
   * The reverse proxies in front of the service (Express `trust proxy` semantics):
   * `loopback`, a hop count, or a comma-separated list of addresses/CIDRs. Unset:
   * X-Forwarded-For is ignored, so a client cannot choose its own address.
   */
  @IsOptional()
  @IsString()
  TRUST_PROXY?: string;

  /**
   * Redis for what several instances share (rate-limit windows, auth-cache
   * invalidation), e.g. redis://127.0.0.1:6379/0. Unset: kept in process (one instance).
   */
  @IsOptional()
  @Matches(/^rediss?:\/\/[^\s]+$/, { message: 'REDIS_URL must be a redis:// or rediss:// URL' })
  REDIS_URL?: string;

  /**
   * The bearer token Prometheus sends to GET /metrics. Unset: no metrics are
   * served (the route does not exist) and requests are not timed.
   */
  @IsOptional()
  @Matches(/^[\x21-\x7e]{16,}$/, { message: 'METRICS_TOKEN must be at least 16 printable ASCII characters, without spaces' })
  METRICS_TOKEN?: string;

  /** Parsed form of DATABASE_URL. */
  database!: DatabaseTarget;

  /** Compiled form of TRUST_PROXY, for Express's `trust proxy`, rate limits and request logs. */
  trustProxy!: ProxyTrust;
}

export function validateEnvironment(raw: Record<string, unknown>): Environment {
  return validateVariables(Environment, raw, {
    DATABASE_URL: (env) => {
      env.database = parseDatabaseUrl(env.DATABASE_URL);
    },
    TRUST_PROXY: (env) => {
      env.trustProxy = parseTrustProxy(env.TRUST_PROXY);
    },
    REDIS_URL: (env) => assertRedisDatabase(env.REDIS_URL),
  });
}

/** The most digits a database number is given in: Redis's are small (16 by default). */
const REDIS_DATABASE = /^\d{1,5}$/;

/**
 * REDIS_URL's database number, in its path or a `db` parameter (ioredis reads
 * both), is digits: ioredis would send `SELECT NaN` for `/abc` and crash at
 * startup. A number the server does not have is its own error, logged while
 * the service runs without Redis.
 */
function assertRedisDatabase(redisUrl: string | undefined): void {
  if (redisUrl === undefined) return;
  let url: URL;
  try {
    url = new URL(redisUrl);
  } catch {
    throw new Error('not a valid URL');
  }
  const path = url.pathname.replace(/^\/|\/$/g, '');
  const db = url.searchParams.get('db');
  if ((path !== '' && !REDIS_DATABASE.test(path)) || (db !== null && !REDIS_DATABASE.test(db))) {
    throw new Error('the database number (its path, or a db parameter) must be a number');
  }
}
