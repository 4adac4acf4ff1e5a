import { Injectable, Logger, NotFoundException } from '@nestjs/common';
import { Principal } from '../auth/principal';
import { totalPages } from '../common/pagination/page-query.dto';
import { TransactionRunner } from '../database/transaction-runner';
import { CreditsService } from '../users/credits.service';
import { CallbackOutbox } from './callbacks/callback-outbox';
import { VideoTaskDto, VideoTaskListDto } from './dto/video-task.dto';
import { toVideoTaskDto } from './dto/video-task.mapper';
import { VideoTaskEntity, VideoTaskState } from './entities/video-task.entity';
import { UpstreamTaskStatus } from './upstream/upstream-protocol';
import { VideoUpstreamClient } from './upstream/video-upstream.client';
import { VideoTasksRepository } from './video-tasks.repository';

/** How far along each state is; a task only ever moves forward, and never out of a terminal state. */
const PROGRESS: Record<VideoTaskState, number> = { created: 0, queueing: 1, processing: 2, success: 3, failed: 3 };

export function isTerminal(state: VideoTaskState): boolean {
  return PROGRESS[state] === 3;
}

export type UpdateOutcome = 'changed' | 'unchanged' | 'unknown-task';

@Injectable()
export class VideoTasksService {
  private readonly logger = new Logger(VideoTasksService.name);

  constructor(
    private readonly tasks: VideoTasksRepository,
    private readonly upstream: VideoUpstreamClient,
    private readonly credits: CreditsService,
    private readonly outbox: CallbackOutbox,
    private readonly tx: TransactionRunner,
  ) {}

  /** The caller's task (admins see all; others get 404), refreshed from the upstream while it is running. */
  async get(caller: Principal, taskId: string): Promise<VideoTaskDto> {
    let task = await this.tasks.find(taskId);
    if (!task || (task.userId !== caller.id && !caller.isAdmin)) {
      throw new NotFoundException(`task '${taskId}' not found`);
    }
    if (!isTerminal(task.state)) {
      try {
        await this.applyUpstreamStatus(await this.upstream.queryTask(taskId));
        task = (await this.tasks.find(taskId)) ?? task;
      } catch (error) {
        // The stored state is still a true answer; the next poll or callback catches up.
        this.logger.warn({ taskId, err: error }, 'could not refresh the task from the upstream');
      }
    }
    return toVideoTaskDto(task);
  }

  async list(caller: Principal, page: number, limit: number): Promise<VideoTaskListDto> {
    const [tasks, total] = await this.tasks.pageForUser(caller.id, (page - 1) * limit, limit);
    return { total, tasks: tasks.map(toVideoTaskDto), page, limit, totalPages: totalPages(total, limit) };
  }

  /**
   * Applies a state reported by the upstream (poll or callback). Idempotent:
   * a repeated or out-of-order report changes nothing. In the same
   * transaction: a failed task is refunded exactly once, and the client's
   * callback is queued in the outbox.
   */
  applyUpstreamStatus(status: UpstreamTaskStatus): Promise<UpdateOutcome> {
    return this.tx.run(async (manager) => {
      const task = await this.tasks.find(status.taskId, manager, this.tx.lockForUpdate());
      if (!task) return 'unknown-task';
      if (PROGRESS[status.state] <= PROGRESS[task.state]) return 'unchanged';
      const now = new Date();
      Object.assign(task, {
        state: status.state,
        errCode: status.errCode,
        creations: status.creations,
        updatedAt: now,
      } satisfies Partial<VideoTaskEntity>);
      await this.tasks.save(manager, task);
      if (status.state === 'failed' && (await this.tasks.markRefunded(manager, task.taskId, now))) {
        await this.credits.refund(manager, task.userId, task.credits, task.taskId);
      }
      if (task.callbackUrl) {
        await this.outbox.enqueue(manager, {
          taskId: task.taskId,
          userId: task.userId,
          url: task.callbackUrl,
          body: JSON.stringify(toVideoTaskDto(task)),
        });
      }
      return 'changed';
    });
  }
}
