import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import Redis from 'ioredis';
import { once } from 'node:events';
import { appConfig, AppConfig } from '../../config/config.module';

/** Every key this service writes starts with it, so a Redis database can be shared with other applications. */
export const REDIS_KEY_PREFIX = 'registry:';

const WARNING_INTERVAL_MS = 60_000;
/** How long startup waits for Redis before serving without it (docs/api-rules.md §8: keep serving). */
const STARTUP_WAIT_MS = 2000;
/**
 * Every connection is pinged this often and dropped (then reconnected) when
 * the answer takes longer than HEARTBEAT_TIMEOUT_MS: a Redis that hangs with
 * its connections open (a partition, a stalled server) sends no error, and
 * until a connection closes nothing here would stop trusting caches kept
 * valid by its messages. Together under 1 s, the bound on a write reaching
 * every instance (docs/api-rules.md §8).
 */
const HEARTBEAT_MS = 250;
const HEARTBEAT_TIMEOUT_MS = 500;

/**
 * The connection to REDIS_URL, when it is set: state all instances share
 * (rate-limit windows, auth-cache invalidation). Commands fail at once while
 * Redis is unreachable instead of queueing (no offline queue, no retries,
 * a 1 s command deadline), so callers can fail open (docs/api-rules.md §8); the
 * client reconnects by itself. A connection that stops answering is dropped
 * by the heartbeat (HEARTBEAT_MS). Problems are logged at most once a minute.
 */
@Injectable()
export class SharedRedis implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Redis');
  /** Null when REDIS_URL is unset: one instance, everything in process. */
  readonly client: Redis | null;
  private readonly connections: Redis[] = [];
  private lastWarningAt = -Infinity;
  private heartbeat: NodeJS.Timeout | undefined;
  /** When each connection's unanswered ping went out. */
  private readonly pingsSentAt = new Map<Redis, number>();
  private closing = false;

  constructor(@Inject(appConfig.KEY) config: AppConfig) {
    this.client = config.REDIS_URL === undefined ? null : this.connect(config.REDIS_URL, { keyPrefix: REDIS_KEY_PREFIX });
  }

  /** A connection of its own (a subscriber cannot run other commands), or null without REDIS_URL. */
  connection(): Redis | null {
    if (!this.client) return null;
    return this.connect(this.client.options, { keyPrefix: '' });
  }

  /** Whether Redis can be used right now. */
  get available(): boolean {
    return this.client?.status === 'ready';
  }

  /** Logs that Redis failed and what the service does instead, at most once a minute (an outage is not a log flood). */
  warn(error: unknown, consequence: string): void {
    const now = Date.now();
    if (now - this.lastWarningAt < WARNING_INTERVAL_MS) return;
    this.lastWarningAt = now;
    this.logger.warn({ err: error instanceof Error ? error.message : String(error) }, `Redis unavailable: ${consequence}`);
  }

  async onModuleInit(): Promise<void> {
    if (!this.client) return;
    this.heartbeat = setInterval(() => this.beat(), HEARTBEAT_MS).unref();
    if (this.client.status === 'ready') return;
    // Shared state from the first request when Redis is there; if it is not, serve without it.
    const deadline = AbortSignal.timeout(STARTUP_WAIT_MS);
    await once(this.client, 'ready', { signal: deadline }).catch(() => this.warn('not reachable at startup', 'serving without it'));
  }

  /**
   * One ping in flight per ready connection; one unanswered for
   * HEARTBEAT_TIMEOUT_MS is dropped, and reconnects by itself. Any reply
   * counts, an error reply too (a subscriber's differs from PONG; an ACL may
   * refuse PING): Redis answered.
   */
  private beat(): void {
    const now = Date.now();
    for (const connection of this.connections) {
      const sentAt = this.pingsSentAt.get(connection);
      if (connection.status !== 'ready') {
        this.pingsSentAt.delete(connection);
      } else if (sentAt === undefined) {
        this.pingsSentAt.set(connection, now);
        const answered = () => this.pingsSentAt.get(connection) === now && this.pingsSentAt.delete(connection);
        connection.ping().then(answered, (error: unknown) => (error as { name?: unknown } | null)?.name === 'ReplyError' && answered());
      } else if (now - sentAt >= HEARTBEAT_TIMEOUT_MS) {
        // Timers run before I/O is read: after a stalled event loop, an answer already waiting is read before this.
        setImmediate(() => this.dropIfUnanswered(connection, sentAt));
      }
    }
  }

  private dropIfUnanswered(connection: Redis, sentAt: number): void {
    if (this.closing || connection.status !== 'ready' || this.pingsSentAt.get(connection) !== sentAt) return;
    this.pingsSentAt.delete(connection);
    this.warn(`no answer to a ping within ${HEARTBEAT_TIMEOUT_MS} ms`, 'reconnecting; rate limits fail open and auth reads the database until it is back');
    connection.disconnect(true);
  }

  async onApplicationShutdown(): Promise<void> {
    this.closing = true;
    clearInterval(this.heartbeat);
    await Promise.all(this.connections.map((connection) => connection.quit().catch(() => connection.disconnect())));
  }

  private connect(target: string | Redis['options'], overrides: Partial<Redis['options']>): Redis {
    const options: Partial<Redis['options']> = {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: 1000,
      connectTimeout: 2000,
      // A dropped connection's socket is destroyed at once: a hung peer never closes its side.
      disconnectTimeout: 0,
      autoResubscribe: false,
      // Keep trying, at most a second apart.
      retryStrategy: (attempt: number) => Math.min(attempt * 100, 1000),
      ...overrides,
    };
    const connection = typeof target === 'string' ? new Redis(target, options) : new Redis({ ...target, ...options });
    connection.on('error', (error: Error) => this.warn(error, 'rate limits fail open and auth reads the database until it is back'));
    this.connections.push(connection);
    return connection;
  }
}
