import { Logger } from '@nestjs/common';
import { FailingRounds } from '../logging/failing-rounds';

/** How long stop() waits for a run in progress, unless the job says otherwise. */
const SHUTDOWN_WAIT_MS = 5000;

/**
 * Runs `work` at once and then `intervalMs` after each run ends (never two
 * runs at a time), until stop(), which aborts the signal `work` is given so
 * that a long run can end between two of its steps. A failed run is logged
 * (see FailingRounds) and the next one comes as usual.
 */
export class PeriodicJob {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private readonly stopping = new AbortController();
  private readonly rounds: FailingRounds;

  constructor(
    what: string,
    private readonly intervalMs: number,
    private readonly work: (stopping: AbortSignal) => Promise<unknown>,
    logger: Logger,
    /** A job whose steps cannot be cut short (a request already sent) waits for its longest step. */
    private readonly shutdownWaitMs = SHUTDOWN_WAIT_MS,
  ) {
    this.rounds = new FailingRounds(logger, what);
  }

  start(): void {
    if (this.stopping.signal.aborted) return;
    this.running = this.work(this.stopping.signal)
      .then(
        () => this.rounds.succeeded(),
        (error: unknown) => this.rounds.failed(error),
      )
      .finally(() => {
        if (this.stopping.signal.aborted) return;
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
    this.stopping.abort();
    clearTimeout(this.timer);
    let waited: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((resolve) => (waited = setTimeout(resolve, this.shutdownWaitMs)));
    await Promise.race([this.running, limit]);
    clearTimeout(waited);
  }
}
