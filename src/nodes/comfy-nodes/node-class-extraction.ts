import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { ArchiveStorage } from '../../archives/archive-storage';
import { NodesRepository } from '../nodes.repository';
import { ComfyNodesService } from './comfy-nodes.service';
import { extractNodeClasses, ExtractionResult } from './extraction/extract-node-classes';

/** Extractions run at once per instance: each parses a pack's Python on this process's thread. */
const CONCURRENCY = 2;
/** How often an instance looks for versions still pending (one whose instance stopped mid-extraction). */
const SWEEP_INTERVAL_MS = 60_000;
/** How long shutdown waits for extractions in progress; the rest stay pending and resume at the next start. */
const SHUTDOWN_WAIT_MS = 5000;

interface Job {
  versionId: string;
  sha256: string;
}

const keyOf = ({ versionId, sha256 }: Job): string => `${versionId}@${sha256}`;

/**
 * Extracts a version's node classes from its archive (docs/api-rules.md
 * §9.3) in the background, never delaying the upload that stored it.
 * Durable: the upload's transaction sets the version's
 * `app_node_extract_status` to `pending`, and every instance, at startup and
 * every SWEEP_INTERVAL_MS, starts the extraction of each version still
 * pending with an archive, so one a stopped process left unfinished is
 * resumed. Instances may extract the same version at once: the result is
 * stored only while the version is still pending with that archive
 * (ComfyNodesService.recordExtraction), so the first wins and the others
 * write nothing.
 */
@Injectable()
export class NodeClassExtraction implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(NodeClassExtraction.name);
  private readonly waiting: Job[] = [];
  /** Jobs waiting or running here, by key, so a sweep does not queue one twice. */
  private readonly queued = new Set<string>();
  private readonly running = new Set<Promise<void>>();
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly storage: ArchiveStorage,
    private readonly versions: NodesRepository,
    private readonly comfyNodes: ComfyNodesService,
  ) {}

  onApplicationBootstrap(): void {
    this.sweepPeriodically();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.waiting.length = 0;
    let waited: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((resolve) => (waited = setTimeout(resolve, SHUTDOWN_WAIT_MS)));
    await Promise.race([Promise.allSettled(this.running), limit]);
    clearTimeout(waited);
  }

  /** Queues the extraction of the archive `sha256` just stored for a version (after the transaction that set it pending). */
  start(versionId: string, sha256: string): void {
    const job = { versionId, sha256 };
    if (this.stopped || this.queued.has(keyOf(job))) return;
    this.queued.add(keyOf(job));
    this.waiting.push(job);
    this.runWaiting();
  }

  /** Resolves once no extraction is waiting or running here (the demo seeder waits, so its packs show their classes at once). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /** Queues every version still pending with an archive. */
  async sweep(): Promise<void> {
    for (const { id, archiveSha256 } of await this.versions.versionsAwaitingExtraction()) {
      if (archiveSha256 !== null) this.start(id, archiveSha256);
    }
  }

  private sweepPeriodically(): void {
    if (this.stopped) return;
    void this.sweep()
      .catch((error: unknown) => this.logger.error({ err: error }, 'looking for pending node-class extractions failed; retried at the next sweep'))
      .finally(() => {
        if (this.stopped) return;
        this.timer = setTimeout(() => this.sweepPeriodically(), SWEEP_INTERVAL_MS);
        this.timer.unref();
      });
  }

  private runWaiting(): void {
    while (this.running.size < CONCURRENCY && this.waiting.length > 0) {
      const job = this.waiting.shift() as Job;
      const run: Promise<void> = this.extract(job)
        .catch((error: unknown) =>
          // Storing the result failed (the database): the version stays pending, and the next sweep retries it.
          this.logger.error({ err: error, versionId: job.versionId }, 'storing extracted node classes failed; retried at the next sweep'),
        )
        .finally(() => {
          this.running.delete(run);
          this.queued.delete(keyOf(job));
          this.runWaiting();
        });
      this.running.add(run);
    }
  }

  private async extract({ versionId, sha256 }: Job): Promise<void> {
    const result = await this.storage.withLocalFile(sha256, (path) => extractNodeClasses(path)).catch((error: unknown): ExtractionResult => {
      // The same archive would fail the same way again: a failed extraction (the details, which may name paths, only in the log).
      this.logger.warn({ err: error, versionId, sha256 }, 'node-class extraction could not run');
      return { status: 'failed', classes: [], reason: 'the archive could not be read' };
    });
    await this.comfyNodes.recordExtraction(versionId, sha256, result);
  }
}
