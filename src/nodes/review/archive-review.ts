import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { ArchiveStorage } from '../../archives/archive-storage';
import { PeriodicJob } from '../../common/scheduling/periodic-job';
import { checkArchive } from '../archive-checks/check-archive';
import { extractNodeClasses } from '../comfy-nodes/extraction/extract-node-classes';
import { NodesRepository } from '../nodes.repository';
import { VersionReviewService } from './version-review.service';

/** Reviews run at once per instance: each reads a pack's archive and parses its Python on this process's thread. */
const CONCURRENCY = 2;
/** How often an instance looks for archives still waiting (one whose instance stopped mid-review). */
const SWEEP_INTERVAL_MS = 30_000;
/** How long shutdown waits for reviews in progress; the rest stay pending and resume at the next start. */
const SHUTDOWN_WAIT_MS = 5000;

/** The archive `sha256` of a version (its semantic version `version`) to review. */
export interface ArchiveReviewJob {
  versionId: string;
  version: string;
  sha256: string;
}


const keyOf = ({ versionId, sha256 }: ArchiveReviewJob): string => `${versionId}@${sha256}`;

/**
 * Reviews a version's archive in the background, never delaying the upload
 * that stored it: its checks (docs/api-rules.md §10) and its node classes
 * (§9.3), each read from the stored file. Durable: the upload's
 * transaction makes the version pending (and its extraction `pending`), and
 * every instance, at startup and every SWEEP_INTERVAL_MS, starts the review
 * of each archive still waiting, so one a stopped process left unfinished is
 * resumed. Instances may review the same archive at once: a result is
 * stored only while the version still waits for it with that archive
 * (VersionReviewService.recordReview), so the first wins and the others
 * write nothing.
 */
@Injectable()
export class ArchiveReview implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(ArchiveReview.name);
  private readonly sweeps = new PeriodicJob('looking for archives awaiting review', SWEEP_INTERVAL_MS, () => this.sweep(), this.logger);
  private readonly waiting: ArchiveReviewJob[] = [];
  /** Jobs waiting or running here, by key, so a sweep does not queue one twice. */
  private readonly queued = new Set<string>();
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly storage: ArchiveStorage,
    private readonly versions: NodesRepository,
    private readonly reviews: VersionReviewService,
  ) {}

  onApplicationBootstrap(): void {
    this.sweeps.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.waiting.length = 0;
    let waited: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((resolve) => (waited = setTimeout(resolve, SHUTDOWN_WAIT_MS)));
    // The sweep and the reviews in progress end meanwhile, within the one wait.
    await Promise.all([this.sweeps.stop(), Promise.race([Promise.allSettled(this.running), limit])]);
    clearTimeout(waited);
  }

  /** Queues the review of an archive just stored for a version (after the transaction that set it pending). */
  start(job: ArchiveReviewJob): void {
    if (this.stopped || this.queued.has(keyOf(job))) return;
    this.queued.add(keyOf(job));
    this.waiting.push(job);
    this.runWaiting();
  }

  /** Resolves once no review is waiting or running here (the demo seeder waits, so its packs show their statuses at once). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /** Queues every archive still waiting for its review. */
  async sweep(): Promise<void> {
    for (const job of await this.versions.archivesAwaitingReview()) this.start(job);
  }

  private runWaiting(): void {
    while (this.running.size < CONCURRENCY && this.waiting.length > 0) {
      const job = this.waiting.shift() as ArchiveReviewJob;
      const run: Promise<void> = this.review(job)
        .catch((error: unknown) =>
          // Reading the archive or storing the result failed (the disk, the database): the version stays pending, and the next sweep retries it.
          this.logger.error({ err: error, versionId: job.versionId }, 'an archive review failed; retried at the next sweep'),
        )
        .finally(() => {
          this.running.delete(run);
          this.queued.delete(keyOf(job));
          this.runWaiting();
        });
      this.running.add(run);
    }
  }

  /** Rejects when the stored file cannot be read (an I/O error): the version stays pending, and a later sweep tries again. */
  private async review(job: ArchiveReviewJob): Promise<void> {
    const { extraction, findings } = await this.storage.withLocalFile(job.sha256, async (path) => ({
      extraction: await extractNodeClasses(path),
      findings: await checkArchive(path, { version: job.version }),
    }));
    await this.reviews.recordReview(job, extraction, findings);
  }
}
