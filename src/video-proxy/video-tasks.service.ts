import { ConflictException, Injectable, Logger, NotFoundException } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ArchivesService } from '../archives/archives.service';
import { Principal } from '../auth/principal';
import { offsetOf, pageOf } from '../common/pagination/page-query.dto';
import { TransactionRunner } from '../database/transaction-runner';
import { CreditsService } from '../users/credits.service';
import { CallbackOutbox } from './callbacks/callback-outbox';
import { EarlyUpstreamStatusesRepository } from './callbacks/early-upstream-statuses.repository';
import { VideoTaskDto, VideoTaskListDto } from './dto/video-task.dto';
import { toVideoTaskDto } from './dto/video-task.mapper';
import { VideoTaskEntity, VideoTaskState } from './entities/video-task.entity';
import { UPSTREAM_LINK_LIFETIME_MS, VideoResultsService } from './results/video-results.service';
import { nextStatusCheck } from './task-status-checks';
import { UpstreamTaskStatus } from './upstream/upstream-protocol';
import { VideoUpstreamClient } from './upstream/video-upstream.client';
import { VideoTasksRepository } from './video-tasks.repository';

/** How long a refused cancel waits to learn whether the upstream's task is canceled already. */
const CANCEL_CHECK_MS = 3000;

/** How far along each state is; a task only ever moves forward, and never out of a terminal state. */
const PROGRESS: Record<VideoTaskState, number> = { created: 0, queueing: 1, processing: 2, success: 3, failed: 3, canceled: 3 };

/** Whether a task in `state` gets its credits back: the terminal states but success (once: VideoTasksRepository.markRefunded). */
export function isRefundedState(state: VideoTaskState): boolean {
  return state === 'failed' || state === 'canceled';
}

export function isTerminal(state: VideoTaskState): boolean {
  return PROGRESS[state] === 3;
}

/**
 * A task the upstream reported successful without its creations (a create
 * reply already `success`, a callback without them), for as long as their
 * links would live (a day from the success, which `updatedAt` holds until
 * they come): it is still asked about, and a later report of the same
 * success with its creations is applied, so its results are kept and its
 * links shown.
 */
export function awaitsCreations(task: Pick<VideoTaskEntity, 'state' | 'creations' | 'updatedAt'>, now = new Date()): boolean {
  return task.state === 'success' && task.creations === null && now.getTime() < task.updatedAt.getTime() + UPSTREAM_LINK_LIFETIME_MS;
}

/** Whether the upstream has nothing more to say about the task: it ended, with its creations if it succeeded (awaitsCreations). */
export function isSettled(task: Pick<VideoTaskEntity, 'state' | 'creations' | 'updatedAt'>, now = new Date()): boolean {
  return isTerminal(task.state) && !awaitsCreations(task, now);
}

export type UpdateOutcome = 'changed' | 'unchanged' | 'unknown-task';

/** How long a state reported before its task was stored is kept for it: far longer than a create takes to commit. */
const EARLY_STATUS_RETENTION_MS = 60 * 60 * 1000;
/** Tasks whose kept states one recovery sweep looks at. */
const KEPT_STATUS_BATCH = 100;
/** Running tasks one background check asks the upstream about, one after another. */
const STATUS_CHECK_BATCH = 50;

@Injectable()
export class VideoTasksService {
  private readonly logger = new Logger(VideoTasksService.name);

  constructor(
    private readonly tasks: VideoTasksRepository,
    private readonly early: EarlyUpstreamStatusesRepository,
    private readonly upstream: VideoUpstreamClient,
    private readonly credits: CreditsService,
    private readonly outbox: CallbackOutbox,
    private readonly results: VideoResultsService,
    private readonly archives: ArchivesService,
    private readonly tx: TransactionRunner,
  ) {}

  /**
   * The caller's task (admins see all; others get 404), refreshed from the
   * upstream until it is settled. `origin` (the request's) makes the links to
   * kept results when PUBLIC_BASE_URL is unset.
   */
  async get(caller: Principal, taskId: string, origin: string): Promise<VideoTaskDto> {
    let task = await this.visibleTask(caller, taskId);
    if (!isSettled(task)) {
      try {
        await this.applyUpstreamStatus(await this.upstream.queryTask(taskId));
        task = (await this.tasks.find(taskId)) ?? task;
      } catch (error) {
        // The stored state is still a true answer; the next poll or callback catches up.
        this.logger.warn({ taskId, err: error }, 'could not refresh the task from the upstream');
      }
    }
    const [reply] = await this.replies([task], origin);
    return reply;
  }

  async list(caller: Principal, page: number, limit: number, origin: string): Promise<VideoTaskListDto> {
    const [tasks, total] = await this.tasks.pageForUser(caller.id, offsetOf({ page, limit }), limit);
    return pageOf(total, 'tasks', await this.replies(tasks, origin), { page, limit });
  }

  /**
   * POST …/cancel (docs/api-rules.md §4.4): the upstream cancels first (its
   * refusal is 409, its failure 502/504, and nothing changes here); then the
   * task becomes `canceled` and is refunded, unless a report of its end won
   * the race meanwhile: the state read under the row lock decides, so there
   * is one terminal state and at most one refund.
   */
  async cancel(caller: Principal, taskId: string, origin: string): Promise<VideoTaskDto> {
    const task = await this.visibleTask(caller, taskId);
    if (task.state === 'canceled') return (await this.replies([task], origin))[0];
    assertCancelable(task);
    await this.upstream.cancelTask(taskId).catch(async (error: unknown) => {
      // The upstream refusing a task a concurrent cancel just canceled (recorded here, or not yet): that cancel's
      // outcome is this one's too, and the transaction below records it once.
      if (error instanceof ConflictException && (await this.canceledAlready(taskId))) return;
      throw error;
    });
    const canceled = await this.tx.run(async (manager) => {
      const current = await this.tasks.find(taskId, manager, this.tx.lockForUpdate());
      if (!current) throw new NotFoundException(`task '${taskId}' not found`);
      if (current.state === 'canceled') return current;
      assertCancelable(current);
      await this.moveTo(manager, current, { state: 'canceled', errCode: null, creations: null });
      return current;
    });
    return (await this.replies([canceled], origin))[0];
  }

  /**
   * Whether the task is canceled here or, by the upstream's own account,
   * there: false when the upstream cannot say within CANCEL_CHECK_MS (the
   * refusal is then answered as it came, not later than that).
   */
  private async canceledAlready(taskId: string): Promise<boolean> {
    if ((await this.tasks.find(taskId))?.state === 'canceled') return true;
    const upstream = await this.upstream.queryTask(taskId, AbortSignal.timeout(CANCEL_CHECK_MS)).catch(() => undefined);
    return upstream?.state === 'canceled';
  }

  /**
   * A state the upstream reported by callback. One for a task not stored yet
   * is kept and applied once the task is (applyEarlyStatuses): a fast upstream
   * can call back between its create reply and the commit that stores the
   * task, and would not call again. The recovery sweep applies what a
   * create could not (applyKeptStatuses).
   */
  async receiveUpstreamStatus(status: UpstreamTaskStatus): Promise<UpdateOutcome | 'kept'> {
    const outcome = await this.applyUpstreamStatus(status);
    if (outcome !== 'unknown-task') return outcome;
    await this.tx.run((manager) => this.early.insert(manager, status, new Date()));
    // The task may have been stored since it was looked for, and its create have found nothing kept: look again.
    await this.applyEarlyStatuses(status.taskId);
    return 'kept';
  }

  /**
   * Applies the states the upstream reported before the task was stored, in
   * the order received, then forgets them; nothing while the task is still
   * not stored. Called by both sides of the race (the create once its task is
   * stored, the callback once its state is kept), so one of them sees the
   * other's commit; applying twice changes nothing.
   */
  async applyEarlyStatuses(taskId: string): Promise<void> {
    const kept = await this.early.forTask(taskId);
    if (kept.length === 0) return;
    for (const { status } of kept) {
      if ((await this.applyUpstreamStatus(status)) === 'unknown-task') return;
    }
    await this.tx.run((manager) => this.early.delete(manager, kept.map(({ id }) => id)));
  }

  /**
   * The recovery sweep's part (ReservationRecovery): applies the kept states
   * of tasks stored since, which their create did not (it failed, or its
   * process stopped, just after storing the task), and forgets those kept
   * longer than EARLY_STATUS_RETENTION_MS, whose task never came (another
   * service's, or a create that failed).
   */
  async applyKeptStatuses(now = new Date()): Promise<void> {
    await this.tx.run((manager) => this.early.deleteReceivedBefore(manager, new Date(now.getTime() - EARLY_STATUS_RETENTION_MS)));
    for (const taskId of await this.early.keptTaskIds(KEPT_STATUS_BATCH)) {
      await this.applyEarlyStatuses(taskId);
    }
  }

  /**
   * TaskStatusPoller's part: asks the upstream about the running tasks whose
   * check is due, each claimed first (its next check moved on, see
   * nextStatusCheck), so that of instances checking at once one asks. An
   * upstream that cannot answer is logged; the task's next check comes as
   * scheduled. Stops between two tasks once `stopping` is aborted (a
   * shutdown). Returns how many tasks were asked about.
   */
  async checkDueTasks(minIntervalMs: number, stopping?: AbortSignal, now = new Date()): Promise<number> {
    let asked = 0;
    for (const task of await this.tasks.dueForCheck(now, STATUS_CHECK_BATCH)) {
      if (stopping?.aborted) break;
      // A success whose creations never came within their links' lifetime: nothing left to ask.
      const next = isSettled(task, now) ? null : nextStatusCheck(task.createdAt, now, minIntervalMs);
      if (!(await this.tasks.claimCheck(task, next)) || next === null) continue;
      asked++;
      try {
        await this.applyUpstreamStatus(await this.upstream.queryTask(task.taskId, stopping));
      } catch (error) {
        this.logger.warn({ taskId: task.taskId, err: error }, 'could not check the task with the upstream; checked again later');
      }
    }
    return asked;
  }

  /**
   * Applies a state reported by the upstream (poll or callback). Idempotent:
   * a repeated or out-of-order report changes nothing, but for the creations
   * of a success that came without them (awaitsCreations).
   */
  applyUpstreamStatus(status: UpstreamTaskStatus): Promise<UpdateOutcome> {
    return this.tx.run(async (manager) => {
      const task = await this.tasks.find(status.taskId, manager, this.tx.lockForUpdate());
      if (!task) return 'unknown-task';
      const bringsCreations = awaitsCreations(task) && status.state === 'success' && status.creations !== null;
      if (!bringsCreations && PROGRESS[status.state] <= PROGRESS[task.state]) return 'unchanged';
      await this.moveTo(manager, task, { state: status.state, errCode: status.errCode, creations: status.creations });
      return 'changed';
    });
  }

  /** Task replies with fresh signed links to the results kept of successful ones. */
  private async replies(tasks: VideoTaskEntity[], origin: string): Promise<VideoTaskDto[]> {
    const succeeded = tasks.filter((task) => task.state === 'success').map((task) => task.taskId);
    const stored = await this.results.storedCreations(succeeded, this.archives.baseUrl(origin));
    return tasks.map((task) => toVideoTaskDto(task, stored.get(task.taskId)));
  }

  /** The caller's task: admins see all; anyone else gets 404 for a task not theirs. */
  private async visibleTask(caller: Principal, taskId: string): Promise<VideoTaskEntity> {
    const task = await this.tasks.find(taskId);
    if (!task || (task.userId !== caller.id && !caller.isAdmin)) {
      throw new NotFoundException(`task '${taskId}' not found`);
    }
    return task;
  }

  /**
   * Records a state change of a task read under its row lock (or a success's
   * creations, which come as the same state again). In the same transaction:
   * a failed or canceled task is refunded exactly once, a successful one's
   * files are queued to be kept, and the client's callback is queued in the
   * outbox.
   */
  private async moveTo(
    manager: EntityManager,
    task: VideoTaskEntity,
    change: Pick<VideoTaskEntity, 'state' | 'errCode' | 'creations'>,
  ): Promise<void> {
    const now = new Date();
    // Creations coming after their success: the success was seen when the task last changed.
    const successSeenAt = task.state === 'success' ? task.updatedAt : now;
    // A settled task is never checked again; any other keeps its schedule.
    const nextCheckAt = isSettled({ ...change, updatedAt: now }, now) ? null : task.nextCheckAt;
    const changes = { ...change, updatedAt: now, nextCheckAt } satisfies Partial<VideoTaskEntity>;
    await this.tasks.update(manager, task.taskId, changes);
    Object.assign(task, changes);
    if (isRefundedState(task.state) && (await this.tasks.markRefunded(manager, task.taskId, now))) {
      await this.credits.refund(manager, task.userId, task.credits, task.taskId);
    }
    if (task.state === 'success') await this.results.enqueue(manager, task, successSeenAt);
    if (task.callbackUrl) {
      await this.outbox.enqueue(manager, {
        taskId: task.taskId,
        userId: task.userId,
        url: task.callbackUrl,
        body: JSON.stringify(toVideoTaskDto(task)),
      });
    }
  }
}

/** A task that already succeeded or failed cannot be canceled (409). */
function assertCancelable(task: VideoTaskEntity): void {
  if (isTerminal(task.state)) {
    throw new ConflictException(`task '${task.taskId}' already ended (${task.state}); it cannot be canceled`);
  }
}
