import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { CreditsService } from '../users/credits.service';
import { IdempotencyService } from './idempotency.service';
import { videoConfig, VideoConfig } from './video.config';
import { VideoTasksService } from './video-tasks.service';

/** How long shutdown waits for a sweep in progress. */
const SHUTDOWN_WAIT_MS = 5000;

/**
 * Crash recovery for creates (docs/api-rules.md §8). A live create settles or releases
 * its reservation within VIDEO_UPSTREAM_TIMEOUT_MS (the upstream call's own
 * deadline) plus a few statements; one still open after that plus
 * VIDEO_RESERVATION_GRACE_MS belongs to a process that died. Every instance
 * sweeps at startup and every VIDEO_RECOVERY_SWEEP_MS, releasing those
 * (ledger `release`) and freeing their Idempotency-Key, so a retry with the
 * same key runs anew. Instances may sweep at the same moment: each
 * reservation is released by whichever deletes its row first
 * (CreditsService.releaseInterrupted).
 */
@Injectable()
export class ReservationRecovery implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(ReservationRecovery.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly credits: CreditsService,
    private readonly idempotency: IdempotencyService,
    private readonly tasks: VideoTasksService,
    @Inject(videoConfig.KEY) private readonly config: VideoConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.run();
  }

  /**
   * Lets a sweep in progress finish, but not for ever: a sweep whose database
   * went away under it (a pool closed mid-connect) may never settle, and
   * shutdown must not hang on it. Leaving it is safe: each release is one
   * transaction, committed or not.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    let waited: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((resolve) => (waited = setTimeout(resolve, SHUTDOWN_WAIT_MS)));
    await Promise.race([this.running, limit]);
    clearTimeout(waited);
  }

  /** Releases the reservations of interrupted creates, and applies the states reported early to their tasks; returns how many reservations this call released. */
  async sweep(now = new Date()): Promise<number> {
    const cutoff = new Date(now.getTime() - this.config.VIDEO_UPSTREAM_TIMEOUT_MS - this.config.VIDEO_RESERVATION_GRACE_MS);
    const released = await this.credits.releaseInterrupted(cutoff, async (manager, reservation) => {
      if (reservation.idempotencyKey !== null) {
        await this.idempotency.releaseInterrupted(manager, reservation.userId, reservation.idempotencyKey);
      }
    });
    for (const { id, userId, amount, idempotencyKey } of released) {
      this.logger.warn(
        { reservationId: id, userId, amount, idempotencyKey },
        'released the credit reservation of a create that was interrupted (its process stopped before finishing it)',
      );
    }
    // A create interrupted just after storing its task may have left states the upstream reported early.
    await this.tasks.applyKeptStatuses(now);
    return released.length;
  }

  private run(): void {
    if (this.stopped) return;
    this.running = this.sweep()
      .then(() => undefined)
      .catch((error: unknown) => this.logger.error({ err: error }, 'reservation recovery sweep failed; retried at the next'))
      .finally(() => {
        if (this.stopped) return;
        this.timer = setTimeout(() => this.run(), this.config.VIDEO_RECOVERY_SWEEP_MS);
        this.timer.unref();
      });
  }
}
