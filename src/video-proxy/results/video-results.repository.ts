import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, FindManyOptions, In, LessThan, LessThanOrEqual } from 'typeorm';
import { VideoResultEntity } from '../entities/video-result.entity';

/** A job as the worker picks it up. */
export type DueResult = Pick<VideoResultEntity, 'id' | 'taskId' | 'kind' | 'sourceUrl' | 'attempts' | 'linksExpireAt'>;

/** What finishing or rescheduling an attempt changes. */
export type ResultOutcome = Partial<
  Pick<VideoResultEntity, 'state' | 'nextAttemptAt' | 'sha256' | 'contentType' | 'storedAt' | 'lastError'>
>;

/** Data access for kept video results (the `video_results` table). */
@Injectable()
export class VideoResultsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(manager: EntityManager, results: VideoResultEntity[]): Promise<void> {
    if (results.length > 0) await manager.insert(VideoResultEntity, results);
  }

  /** Pending jobs whose next attempt is due (a leased job's is the end of its lease), soonest first. */
  due(now: Date, limit: number): Promise<DueResult[]> {
    return this.dataSource.manager.find(VideoResultEntity, {
      select: { id: true, taskId: true, kind: true, sourceUrl: true, attempts: true, linksExpireAt: true },
      where: { state: 'pending', nextAttemptAt: LessThanOrEqual(now) },
      order: { nextAttemptAt: 'ASC', id: 'ASC' },
      take: limit,
    });
  }

  /**
   * Changes a pending job only if it still has the attempts the caller read
   * (the lease's fence): true when this call changed it. With `lease`, the
   * attempt is counted too.
   */
  async updateIfCurrent(manager: EntityManager, job: Pick<DueResult, 'id' | 'attempts'>, change: ResultOutcome & { attempts?: number }): Promise<boolean> {
    const { affected } = await manager.update(VideoResultEntity, { id: job.id, attempts: job.attempts, state: 'pending' }, change);
    return affected === 1;
  }

  forTasks(taskIds: string[]): Promise<VideoResultEntity[]> {
    if (taskIds.length === 0) return Promise.resolve([]);
    return this.dataSource.manager.find(VideoResultEntity, { where: { taskId: In(taskIds) } });
  }

  withSha256(sha256: string, manager: EntityManager = this.dataSource.manager): Promise<VideoResultEntity[]> {
    return manager.find(VideoResultEntity, { where: { sha256 } });
  }

  /**
   * Locks the rows holding a file with `lock` for the rest of the caller's transaction (in id order: two lockers
   * cannot deadlock). Nothing is returned: on PostgreSQL a locking read that waited returns the rows it waited on as
   * they now are, but not a row that only came to hold the file meanwhile, so a decision reads them again.
   */
  async lockHoldersOf(manager: EntityManager, sha256: string, lock: Pick<FindManyOptions, 'lock'>): Promise<void> {
    await manager.find(VideoResultEntity, { select: { id: true }, where: { sha256 }, order: { id: 'ASC' }, ...lock });
  }

  storedBefore(cutoff: Date, limit: number): Promise<VideoResultEntity[]> {
    return this.dataSource.manager.find(VideoResultEntity, {
      where: { state: 'stored', storedAt: LessThan(cutoff) },
      order: { storedAt: 'ASC' },
      take: limit,
    });
  }

  /** Marks a stored file deleted (retention); true only for the call that did. */
  async markDeleted(manager: EntityManager, id: string): Promise<boolean> {
    const { affected } = await manager.update(VideoResultEntity, { id, state: 'stored' }, { state: 'deleted' });
    return affected === 1;
  }
}
