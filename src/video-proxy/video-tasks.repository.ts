import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, FindOneOptions, IsNull, LessThanOrEqual } from 'typeorm';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { VideoTaskEntity } from './entities/video-task.entity';

/** Data access for video tasks. */
@Injectable()
export class VideoTasksRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Inserts a new task; an existing task id is a unique violation, never an overwrite. */
  async insert(manager: EntityManager, task: VideoTaskEntity): Promise<void> {
    // TypeORM's deep-partial insert type cannot follow the simple-json records (`request`, `reply`), stored whole.
    await manager.insert(VideoTaskEntity, task as QueryDeepPartialEntity<VideoTaskEntity>);
  }

  find(
    taskId: string,
    manager: EntityManager = this.dataSource.manager,
    options: Pick<FindOneOptions, 'lock'> = {},
  ): Promise<VideoTaskEntity | null> {
    return manager.findOne(VideoTaskEntity, { where: { taskId }, ...options });
  }

  /** The task created under an Idempotency-Key claim, if the upstream created one and it was stored. */
  findByIdempotencyClaim(manager: EntityManager, claimId: string): Promise<VideoTaskEntity | null> {
    return manager.findOne(VideoTaskEntity, { where: { idempotencyKeyId: claimId } });
  }

  /** Sets the given columns of the task (one UPDATE). */
  async update(manager: EntityManager, taskId: string, changes: Partial<Pick<VideoTaskEntity, 'state' | 'errCode' | 'creations' | 'updatedAt' | 'nextCheckAt'>>): Promise<void> {
    await manager.update(VideoTaskEntity, { taskId }, changes);
  }

  /** Marks the task refunded unless it already was; true only for the call that marked it. */
  async markRefunded(manager: EntityManager, taskId: string, at: Date): Promise<boolean> {
    const result = await manager.update(VideoTaskEntity, { taskId, refundedAt: IsNull() }, { refundedAt: at });
    return result.affected === 1;
  }

  /** Tasks not settled (running, or a success awaiting its creations) whose background check is due at `now`, the longest due first. */
  dueForCheck(
    now: Date,
    limit: number,
  ): Promise<Array<Pick<VideoTaskEntity, 'taskId' | 'createdAt' | 'nextCheckAt' | 'state' | 'creations' | 'updatedAt'>>> {
    return this.dataSource.manager.find(VideoTaskEntity, {
      select: { taskId: true, createdAt: true, nextCheckAt: true, state: true, creations: true, updatedAt: true },
      where: { nextCheckAt: LessThanOrEqual(now) },
      order: { nextCheckAt: 'ASC' },
      take: limit,
    });
  }

  /**
   * Moves the task's next check from the time read to `next` (null: never
   * again); true only for the caller whose UPDATE did it (of instances
   * checking at once, one).
   */
  async claimCheck(task: Pick<VideoTaskEntity, 'taskId' | 'nextCheckAt'>, next: Date | null): Promise<boolean> {
    const result = await this.dataSource.manager.update(VideoTaskEntity, { taskId: task.taskId, nextCheckAt: task.nextCheckAt ?? IsNull() }, { nextCheckAt: next });
    return result.affected === 1;
  }

  pageForUser(userId: string, offset: number, limit: number): Promise<[VideoTaskEntity[], number]> {
    return this.dataSource.manager.findAndCount(VideoTaskEntity, {
      where: { userId },
      order: { createdAt: 'DESC', taskId: 'DESC' },
      skip: offset,
      take: limit,
    });
  }
}
