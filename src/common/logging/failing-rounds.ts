import { Logger } from '@nestjs/common';

/** While rounds keep failing, how often it is said again. */
const REMINDER_INTERVAL_MS = 60_000;

/**
 * The log of a background loop's rounds (a job run every second or so): the
 * first failure with its error, then while the rounds keep failing one
 * reminder a minute with how many have, and a line when one succeeds again.
 * A database outage is then a few lines, not several a second each with its
 * stack (the same rule as Redis's warnings, docs/api-rules.md §8).
 */
export class FailingRounds {
  private failures = 0;
  private failingSince = 0;
  private lastLoggedAt = 0;

  constructor(
    private readonly logger: Logger,
    /** What the rounds do, for the lines: "callback delivery round". */
    private readonly what: string,
    private readonly now: () => number = Date.now,
  ) {}

  failed(error: unknown): void {
    const now = this.now();
    this.failures += 1;
    if (this.failures === 1) {
      this.failingSince = now;
      this.lastLoggedAt = now;
      this.logger.error({ err: error }, `${this.what} failed; retried at the next`);
    } else if (now - this.lastLoggedAt >= REMINDER_INTERVAL_MS) {
      this.lastLoggedAt = now;
      this.logger.error({ err: error }, `${this.what} still failing: ${this.failures} rounds in ${Math.round((now - this.failingSince) / 1000)} s`);
    }
  }

  succeeded(): void {
    if (this.failures === 0) return;
    if (this.failures > 1) this.logger.log(`${this.what} works again after ${this.failures} failed rounds`);
    this.failures = 0;
  }
}
