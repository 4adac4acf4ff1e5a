import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, In, LessThan } from 'typeorm';
import { EarlyUpstreamStatusEntity } from '../entities/early-upstream-status.entity';
import { UpstreamTaskStatus } from '../upstream/upstream-protocol';

/** Data access for the statuses reported before their task was stored (the `early_upstream_statuses` table). */
@Injectable()
export class EarlyUpstreamStatusesRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(manager: EntityManager, status: UpstreamTaskStatus, receivedAt: Date): Promise<void> {
    await manager.insert(EarlyUpstreamStatusEntity, { taskId: status.taskId, status, receivedAt });
  }

  /** The task's kept statuses, in the order received. */
  forTask(taskId: string): Promise<EarlyUpstreamStatusEntity[]> {
    return this.dataSource.manager.find(EarlyUpstreamStatusEntity, { where: { taskId }, order: { id: 'ASC' } });
  }

  /** Up to `limit` tasks with kept statuses. */
  async keptTaskIds(limit: number): Promise<string[]> {
    const rows = await this.dataSource.manager
      .createQueryBuilder(EarlyUpstreamStatusEntity, 'kept')
      .select('kept.taskId', 'taskId')
      .distinct(true)
      .limit(limit)
      .getRawMany<{ taskId: string }>();
    return rows.map(({ taskId }) => taskId);
  }

  async delete(manager: EntityManager, ids: number[]): Promise<void> {
    if (ids.length > 0) await manager.delete(EarlyUpstreamStatusEntity, { id: In(ids) });
  }

  /** Forgets the statuses received before `cutoff` (their task never came: another service's, or its create failed). */
  async deleteReceivedBefore(manager: EntityManager, cutoff: Date): Promise<void> {
    await manager.delete(EarlyUpstreamStatusEntity, { receivedAt: LessThan(cutoff) });
  }
}
