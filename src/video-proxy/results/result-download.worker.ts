import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { EntityManager } from 'typeorm';
import { ArchiveStorage, ArchiveTooLargeError, StoredArchive } from '../../archives/archive-storage';
import { SharedRate } from '../../common/pacing/shared-rate';
import { forEachConcurrently } from '../../common/scheduling/for-each-concurrently';
import { PeriodicJob } from '../../common/scheduling/periodic-job';
import { TransactionRunner } from '../../database/transaction-runner';
import { retryDelayMs } from '../callbacks/callback-delivery.worker';
import { getStream, RefusedAddressError } from '../callbacks/callback-http';
import { videoConfig, VideoConfig } from '../video.config';
import { VideoResultEntity } from '../entities/video-result.entity';
import { UpstreamTarget } from '../upstream/upstream-target';
import { SNIFF_BYTES, sniffMediaType } from './media-type';
import { RESULT_STORAGE } from './result-storage';
import { DueResult, ResultOutcome, VideoResultsRepository } from './video-results.repository';

const POLL_INTERVAL_MS = 500;
/**
 * A download holds its job for this long and renews it every third of it
 * while bytes flow: a crashed instance's job is taken over within the lease.
 */
export const RESULT_LEASE_MS = 15_000;
/** The connection is dropped after this long without a byte. */
const IDLE_TIMEOUT_MS = 30_000;
const BATCH = 16;
/** Downloads at once per instance: each is a stream to disk, not memory, but disk and network are shared. */
const CONCURRENCY = 4;
/**
 * All of an instance's downloads together read at most this fast: background
 * work that hashes and writes each chunk on the event loop, held to about a
 * quarter of a core so requests keep their latency (a 1 GiB file: 32 s).
 */
const DOWNLOAD_BYTES_PER_S = 32 * 1024 * 1024;
const RETENTION_SWEEP_MS = 60_000;
const RETENTION_BATCH = 100;

/** A link no retry can fetch: it redirects (never followed) or is not a URL. */
class UnfollowableLinkError extends Error {}

/**
 * Fetches the files of successful tasks from the upstream and keeps them
 * (docs/api-rules.md §4.4). Jobs live in the database (written with the
 * success), so a restart or another instance resumes them; each attempt
 * leases its job through a fence on `attempts`, so only the attempt holding
 * the lease can finish it, once. Failures retry with the client callbacks'
 * backoff until the upstream's links expire. Also sweeps results past
 * VIDEO_RESULT_RETENTION_DAYS.
 */
@Injectable()
export class ResultDownloadWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(ResultDownloadWorker.name);
  private readonly rounds = new PeriodicJob('result download round', POLL_INTERVAL_MS, (stopping) => this.round(stopping), this.logger);
  private readonly downloadRate = new SharedRate(DOWNLOAD_BYTES_PER_S);
  private lastRetentionSweep = 0;

  constructor(
    private readonly results: VideoResultsRepository,
    private readonly tx: TransactionRunner,
    @Inject(RESULT_STORAGE) private readonly storage: ArchiveStorage,
    @Inject(videoConfig.KEY) private readonly config: VideoConfig,
    private readonly upstream: UpstreamTarget,
  ) {}

  onApplicationBootstrap(): void {
    this.rounds.start();
  }

  /** Downloads in progress are dropped (their jobs are retried at once by the next process), then the round ends. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.rounds.stop();
  }

  private async round(stopping: AbortSignal): Promise<void> {
    if (Date.now() - this.lastRetentionSweep >= RETENTION_SWEEP_MS) {
      this.lastRetentionSweep = Date.now();
      await this.sweepRetention();
    }
    await this.downloadDue(stopping);
  }

  /** The due jobs, a few at a time. */
  private async downloadDue(stopping: AbortSignal): Promise<void> {
    await forEachConcurrently(
      await this.results.due(new Date(), BATCH),
      CONCURRENCY,
      stopping,
      (job) => this.attempt(job, stopping),
      (job, error) => this.logger.error({ err: error, resultId: job.id }, 'result download attempt failed'),
    );
  }

  /** Deletes results kept longer than VIDEO_RESULT_RETENTION_DAYS (0: kept for good); their links answer 410. */
  async sweepRetention(now = Date.now()): Promise<number> {
    const days = this.config.VIDEO_RESULT_RETENTION_DAYS;
    if (days === 0) return 0;
    let deleted = 0;
    for (const file of await this.results.storedBefore(new Date(now - days * 86_400_000), RETENTION_BATCH)) {
      // One file that cannot be deleted (a storage error) must not hold back the others: it is tried again next sweep.
      const done = await this.deleteExpired(file).catch((error: unknown) => {
        this.logger.error({ err: error, resultId: file.id }, 'could not delete a result past its retention');
        return false;
      });
      if (done) deleted += 1;
    }
    return deleted;
  }

  /**
   * Marks one result past its retention deleted (a reader then answers 410)
   * and deletes its file unless another row still holds the same bytes. All
   * under the lock on the rows holding those bytes, which a download marking
   * the same bytes stored takes too (see keep), and with the file deleted
   * before the lock is let go: two sweeps cannot each leave the file to the
   * other, nor a sweep delete a file a download has just counted on. False
   * when another sweep deleted it first.
   */
  async deleteExpired(file: Pick<VideoResultEntity, 'id' | 'sha256'>): Promise<boolean> {
    const sha256 = file.sha256 ?? '';
    return this.tx.run(async (manager) => {
      await this.results.lockHoldersOf(manager, sha256, this.tx.lockForUpdate());
      if (!(await this.results.markDeleted(manager, file.id))) return false;
      await this.deleteUnlessHeld(manager, sha256);
      return true;
    });
  }

  /** Deletes a file no stored row holds, inside a transaction that has locked the rows holding it (lockHoldersOf). */
  private async deleteUnlessHeld(manager: EntityManager, sha256: string): Promise<void> {
    // Read once locked: a download's row may have become a holder while the lock was awaited.
    const holders = await this.results.withSha256(sha256, manager);
    if (!holders.some((holder) => holder.state === 'stored')) await this.storage.delete(sha256);
  }

  private async attempt(job: DueResult, stopping: AbortSignal): Promise<void> {
    const leased = { id: job.id, attempts: job.attempts + 1 };
    if (Date.now() >= job.linksExpireAt.getTime()) {
      await this.finish(job, { state: 'failed', lastError: 'the upstream’s link expired before the file could be fetched' });
      return;
    }
    const taken = await this.tx.run((manager) =>
      this.results.updateIfCurrent(manager, job, { attempts: leased.attempts, nextAttemptAt: new Date(Date.now() + RESULT_LEASE_MS) }),
    );
    if (!taken) return;
    const renewal = setInterval(() => {
      void this.tx
        .run((manager) => this.results.updateIfCurrent(manager, leased, { nextAttemptAt: new Date(Date.now() + RESULT_LEASE_MS) }))
        .catch((error: unknown) => this.logger.warn({ err: error, resultId: job.id }, 'could not renew a result download’s lease'));
    }, RESULT_LEASE_MS / 3);
    try {
      const stored = await this.fetchAndStore(job.sourceUrl, stopping);
      await this.keep(leased, stored.sha256, sniffMediaType(await this.head(stored.sha256)));
    } catch (error) {
      await this.failed(job, leased, error, stopping);
    } finally {
      clearInterval(renewal);
    }
  }

  /** A failed attempt: retried after the backoff, unless it never can succeed or the upstream's link will be dead by then. */
  private async failed(job: DueResult, leased: Pick<DueResult, 'id' | 'attempts'>, error: unknown, stopping: AbortSignal): Promise<void> {
    const message = error instanceof ArchiveTooLargeError ? `the file is larger than VIDEO_RESULT_MAX_BYTES (${error.maxBytes})` : error instanceof Error ? error.message : String(error);
    const reason = message.slice(0, 500);
    if (stopping.aborted) {
      // Not the file's fault: the next process takes it up at once.
      await this.finish(leased, { nextAttemptAt: new Date(), lastError: 'interrupted by a shutdown' });
      return;
    }
    const nextAttemptAt = new Date(Date.now() + retryDelayMs(leased.attempts, this.config.CALLBACK_RETRY_BASE_MS));
    // No retry mends a refused address, a file too large, or a link that redirects or is not a URL.
    const hopeless = error instanceof RefusedAddressError || error instanceof ArchiveTooLargeError || error instanceof UnfollowableLinkError;
    if (hopeless || nextAttemptAt >= job.linksExpireAt) {
      this.logger.warn({ resultId: job.id, taskId: job.taskId, kind: job.kind }, `a video result could not be kept: ${reason}`);
      await this.finish(leased, { state: 'failed', lastError: reason });
      return;
    }
    await this.finish(leased, { nextAttemptAt, lastError: reason });
  }

  /**
   * Marks a fetched file stored, under the lock the retention sweep takes on
   * the rows holding the same bytes (see deleteExpired): once it has it, the
   * file is there for good or was deleted by a sweep, which this attempt
   * then reports as its failure (retried). An attempt that lost its lease
   * (another instance took the job over) leaves the job to that one and
   * deletes what it fetched unless a row holds the same bytes, rather than
   * leave a file nothing refers to; the other attempt's keep checks that its
   * own copy is still there.
   */
  private async keep(leased: Pick<DueResult, 'id' | 'attempts'>, sha256: string, contentType: string): Promise<void> {
    await this.tx.run(async (manager) => {
      await this.results.lockHoldersOf(manager, sha256, this.tx.lockForUpdate());
      if (!(await this.storage.stat(sha256))) throw new Error('the file was deleted by the retention sweep as it was being kept');
      const kept = await this.results.updateIfCurrent(manager, leased, { state: 'stored', sha256, contentType, storedAt: new Date(), lastError: null });
      if (!kept) await this.deleteUnlessHeld(manager, sha256);
    });
  }

  private finish(job: Pick<DueResult, 'id' | 'attempts'>, outcome: ResultOutcome): Promise<boolean> {
    return this.tx.run((manager) => this.results.updateIfCurrent(manager, job, outcome));
  }

  /** Streams the upstream's file into the store (never whole in memory), at most VIDEO_RESULT_MAX_BYTES. */
  private async fetchAndStore(url: string, stopping: AbortSignal): Promise<StoredArchive> {
    const maxBytes = this.config.VIDEO_RESULT_MAX_BYTES;
    let response: IncomingMessage | undefined;
    let paced: Readable | undefined;
    if (!URL.canParse(url)) throw new UnfollowableLinkError(`the link is not a URL: ${url.slice(0, 200)}`);
    try {
      response = await getStream(url, {
        allowPrivate: this.config.CALLBACK_ALLOW_PRIVATE === 'true' || this.upstream.isSandboxUrl(url),
        idleTimeoutMs: IDLE_TIMEOUT_MS,
        signal: stopping,
      });
      const status = response.statusCode ?? 0;
      // Redirects are not followed (they could lead anywhere, as for client callbacks): the same link would redirect again.
      if (status >= 300 && status < 400) throw new UnfollowableLinkError(`the upstream answered HTTP ${status} (a redirect, which is not followed)`);
      if (status !== 200) throw new Error(`the upstream answered HTTP ${status}`);
      const declared = response.headers['content-length'];
      if (declared !== undefined && Number(declared) > maxBytes) throw new ArchiveTooLargeError(maxBytes);
      paced = Readable.from(this.downloadRate.pace(response), { objectMode: false });
      const stored = await this.storage.save(paced, maxBytes);
      // A connection closed early ends the body without an error when no length was promised to check.
      if (declared !== undefined && Number(declared) !== stored.size) {
        // The same bytes may be another result, however unlikely: deleted only if none holds them.
        await this.tx.run(async (manager) => {
          await this.results.lockHoldersOf(manager, stored.sha256, this.tx.lockForUpdate());
          await this.deleteUnlessHeld(manager, stored.sha256);
        });
        throw new Error(`the file ended after ${stored.size} of ${declared} bytes`);
      }
      return stored;
    } finally {
      // The paced stream first: the save stopped listening to it, so an error it raised from the response's end would go unheard.
      paced?.destroy();
      response?.destroy();
    }
  }

  private async head(sha256: string): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of this.storage.read(sha256, { start: 0, end: SNIFF_BYTES - 1 })) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }
}
