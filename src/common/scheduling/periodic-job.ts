import { Logger } from '@nestjs/common';

/** How long stop() waits for a run in progress. */
const SHUTDOWN_WAIT_MS = 5000;

/**
 * Runs `work` at once and then `intervalMs` after each run ends (never two
 * runs at a time), until stop(). A failed run is logged and the next one
 * comes as usual.
 */
export class PeriodicJob {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly what: string,
    private readonly intervalMs: number,
    private readonly work: () => Promise<unknown>,
    private readonly logger: Logger,
  ) {}

  start(): void {
    if (this.stopped) return;
    this.running = this.work()
      .then(() => undefined)
      .catch((error: unknown) => this.logger.error({ err: error }, `${this.what} failed; retried at the next`))
      .finally(() => {
        if (this.stopped) return;
        this.timer = setTimeout(() => this.start(), this.intervalMs);
        this.timer.unref();
      });
  }

  /**
   * Lets a run in progress finish, but not for ever: a run whose database
   * went away under it (a pool closed mid-connect) may never settle, and
   * shutdown must not hang on it. Each job's steps must be safe to leave
   * half-done (each its own transaction).
   */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    let waited: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((resolve) => (waited = setTimeout(resolve, SHUTDOWN_WAIT_MS)));
    await Promise.race([this.running, limit]);
    clearTimeout(waited);
  }
}
