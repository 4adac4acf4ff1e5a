import { plainToInstance, Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Max, Min, validateSync } from 'class-validator';
import { DatabaseTarget, parseDatabaseUrl } from '../database/database-url';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Integer variables arrive as strings; anything that is not a plain integer stays a string and fails `@IsInt`. */
const toInteger = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;

/**
 * The process environment as the service understands it. Every variable is
 * checked here, at startup, so a bad value stops the process with a message
 * naming the variable instead of failing on first use.
 */
export class Environment {
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3000;

  /** Unset: SQLite file ./data/registry.db. Otherwise sqlite:<path>, sqlite::memory: or postgres://... */
  @IsOptional()
  DATABASE_URL?: string;

  @IsOptional()
  @IsIn(LOG_LEVELS)
  LOG_LEVEL: LogLevel = 'info';

  /** Parsed form of DATABASE_URL, filled in by validateEnvironment. */
  database!: DatabaseTarget;
}

export class EnvironmentError extends Error {}

export function validateEnvironment(raw: Record<string, unknown>): Environment {
  const env = plainToInstance(Environment, raw, { exposeDefaultValues: true });
  const problems = validateSync(env, { skipMissingProperties: false }).map(
    (error) => `${error.property}: ${Object.values(error.constraints ?? {}).join(', ')} (got ${JSON.stringify(error.value)})`,
  );
  try {
    env.database = parseDatabaseUrl(env.DATABASE_URL);
  } catch (error) {
    problems.push(`DATABASE_URL: ${(error as Error).message}`);
  }
  if (problems.length > 0) {
    throw new EnvironmentError(`Invalid configuration: ${problems.join('; ')}`);
  }
  return env;
}
