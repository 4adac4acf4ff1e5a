import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { InjectMetric } from '@willsoto/nestjs-prometheus';
import { Counter } from 'prom-client';
import { PeriodicJob } from '../common/scheduling/periodic-job';
import { TransactionRunner } from '../database/transaction-runner';
import { NodesRepository } from './nodes.repository';

/** How often counted downloads reach the database (docs/api-rules.md §6: visible within 2 s). */
export const DOWNLOAD_FLUSH_INTERVAL_MS = 1000;

/** How long a reply showing one node may be served from the read cache, so that its downloads show within 2 s. */
export const ONE_NODE_READ_TTL_MS = 2000 - DOWNLOAD_FLUSH_INTERVAL_MS;

/** The counter of installs counted (declared in nodes-metrics.ts). */
export const INSTALLS_COUNTED = 'registry_installs_total';

/**
 * Counts installs off the reply's critical path: `count` only adds to a map in
 * memory, and a periodic job writes the sums as one atomic increment per node,
 * so an install never waits for (or fails with) a write, and a popular node
 * costs one UPDATE a second however many installs it gets. A flush that fails
 * puts its counts back for the next one (a database outage is logged as any
 * background job's, see FailingRounds); shutdown flushes what is left after
 * the last request and before the database closes. Counts are lost only if
 * the process dies (kill -9) before they are written: within a second of
 * them, or during a database outage. The contract's "batched" allows it.
 */
@Injectable()
export class DownloadCounter implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(DownloadCounter.name);
  private readonly periodicFlush = new PeriodicJob('download count flush', DOWNLOAD_FLUSH_INTERVAL_MS, () => this.flush(), this.logger);
  private pending = new Map<string, number>();
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly nodes: NodesRepository,
    private readonly tx: TransactionRunner,
    @InjectMetric(INSTALLS_COUNTED) private readonly installs: Counter,
  ) {}

  onModuleInit(): void {
    this.periodicFlush.start();
  }

  count(nodeId: string, downloads = 1): void {
    this.installs.inc(downloads);
    this.add(nodeId, downloads);
  }

  /** Writes the counts so far (rejecting if it could not; they are kept for the next flush); one flush at a time, so no count is written twice. */
  flush(): Promise<void> {
    const flushed = this.flushing.then(() => this.writePending());
    this.flushing = flushed.catch(() => undefined);
    return flushed;
  }

  /**
   * The last flush, once the HTTP server has closed (Nest closes it between
   * the before-shutdown hooks and these), so no install is counted after it;
   * until then the periodic flush goes on, through a drain that may last a
   * slow upload's time. Before the data source closes: TypeORM closes it in
   * its own module's shutdown hook, which runs after those of the modules
   * that use it.
   */
  async onApplicationShutdown(): Promise<void> {
    await this.stopPeriodicFlush();
    await this.flush().catch((error: unknown) => {
      const lost = [...this.pending.values()].reduce((sum, count) => sum + count, 0);
      this.logger.error({ err: error }, `${lost} counted downloads could not be written before the shutdown`);
    });
  }

  /** Only flush() writes counts after this. */
  stopPeriodicFlush(): Promise<void> {
    return this.periodicFlush.stop();
  }

  private async writePending(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      await this.tx.run((manager) => this.nodes.addDownloads(manager, batch));
    } catch (error) {
      for (const [nodeId, count] of batch) this.add(nodeId, count);
      throw error;
    }
  }

  private add(nodeId: string, downloads: number): void {
    this.pending.set(nodeId, (this.pending.get(nodeId) ?? 0) + downloads);
  }
}
