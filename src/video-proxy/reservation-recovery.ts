import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { PeriodicJob } from '../common/scheduling/periodic-job';
import { CreditsService } from '../users/credits.service';
import { IdempotencyService } from './idempotency.service';
import { videoConfig, VideoConfig } from './video.config';
import { VideoTasksService } from './video-tasks.service';

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
  private readonly job: PeriodicJob;

  constructor(
    private readonly credits: CreditsService,
    private readonly idempotency: IdempotencyService,
    private readonly tasks: VideoTasksService,
    @Inject(videoConfig.KEY) private readonly config: VideoConfig,
  ) {
    this.job = new PeriodicJob('reservation recovery sweep', config.VIDEO_RECOVERY_SWEEP_MS, () => this.sweep(), this.logger);
  }

  onApplicationBootstrap(): void {
    this.job.start();
  }

  /** A sweep in progress may be left: each release is one transaction, committed or not. */
  beforeApplicationShutdown(): Promise<void> {
    return this.job.stop();
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
}
