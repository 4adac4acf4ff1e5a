/**
 * Error codes that mean the database cannot be reached or is not accepting
 * work right now, rather than that a statement was wrong: the socket's
 * (node-postgres reports a refused or broken connection with them) and
 * PostgreSQL's connection and shutdown classes (SQLSTATE 08, 57P01–57P03);
 * SQLite's lock codes below.
 */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EPIPE',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '57P01',
  '57P02',
  '57P03',
]);

/**
 * SQLite's: another process (the CLI, a backup) held the file's lock past
 * the busy timeout. Extended codes (SQLITE_BUSY_SNAPSHOT, …) start the same.
 */
const UNAVAILABLE_CODE_PREFIXES = ['SQLITE_BUSY', 'SQLITE_LOCKED'];

/** node-postgres's messages for a connection lost or never made, which carry no code. */
const UNAVAILABLE_MESSAGES = [/^Connection terminated/, /^timeout exceeded when trying to connect/, /^Client has encountered a connection error/];

/**
 * Whether `error` (or the driver error TypeORM wrapped in it) says the
 * database is unavailable: a request that failed for that may succeed when
 * retried, so it is answered 503, not 500 (docs/api-rules.md §1).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  // Duck-typed, not `instanceof Error`: a socket's errors come from Node's own realm, which need not be the caller's.
  for (let current: unknown = error, depth = 0; typeof current === 'object' && current !== null && depth < 3; depth++) {
    const { code, message, driverError, cause } = current as { code?: unknown; message?: unknown; driverError?: unknown; cause?: unknown };
    if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || UNAVAILABLE_CODE_PREFIXES.some((prefix) => code.startsWith(prefix)))) return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message))) return true;
    current = driverError ?? cause;
  }
  return false;
}
