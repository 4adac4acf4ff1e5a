import { BadGatewayException, Inject, Injectable, Logger } from '@nestjs/common';
import { Principal } from '../auth/principal';
import { TransactionRunner } from '../database/transaction-runner';
import { CreditsService, Reservation } from '../users/credits.service';
import { UpstreamCallbackUrl } from './callbacks/upstream-callback-url';
import { CreateVideoTaskDto } from './dto/create-video-task.dto';
import { VideoTaskReplyDto } from './dto/video-task.dto';
import { toCreatedVideoTaskDto } from './dto/video-task.mapper';
import { IdempotencyService, requestHash } from './idempotency.service';
import { estimateCredits } from './pricing';
import { UpstreamRejectionException } from './upstream/upstream-protocol';
import { VideoUpstreamClient } from './upstream/video-upstream.client';
import { videoConfig, VideoConfig } from './video.config';
import { VideoModel } from './video-models';
import { VideoTasksRepository } from './video-tasks.repository';
import { isRefundedState, isSettled, VideoTasksService } from './video-tasks.service';
import { nextStatusCheck } from './task-status-checks';

type VideoRequest = CreateVideoTaskDto & { model: VideoModel };

/** The upstream created a task that could not be stored (nor charged): an outcome a retry must get again, not redo. */
class UnrecordedTaskException extends BadGatewayException {
  constructor() {
    super('the video service’s reply could not be recorded; nothing was charged');
  }
}

@Injectable()
export class VideoProxyService {
  private readonly logger = new Logger(VideoProxyService.name);

  constructor(
    private readonly upstream: VideoUpstreamClient,
    private readonly credits: CreditsService,
    private readonly idempotency: IdempotencyService,
    private readonly tasks: VideoTasksRepository,
    private readonly taskStates: VideoTasksService,
    private readonly tx: TransactionRunner,
    private readonly callbackUrl: UpstreamCallbackUrl,
    @Inject(videoConfig.KEY) private readonly config: VideoConfig,
  ) {}

  /** POST /proxy/video/reference2video, with optional Idempotency-Key replay. */
  async create(caller: Principal, input: CreateVideoTaskDto, idempotencyKey?: string): Promise<VideoTaskReplyDto> {
    const request = this.withDefaults(input);
    const estimate = estimateCredits(request, this.config.prices, this.config.VIDEO_OFF_PEAK_PERCENT);
    if (idempotencyKey === undefined) {
      return this.forward(caller, request, await this.credits.reserve(caller.id, estimate), null);
    }
    IdempotencyService.validateKey(idempotencyKey);
    // The reservation names the key, so that the recovery sweep frees the key with it if this process dies.
    const claim = await this.idempotency.claim(caller.id, idempotencyKey, requestHash(request), (manager) =>
      this.credits.reserveWithin(manager, caller.id, estimate, idempotencyKey),
    );
    if ('replay' in claim) {
      return claim.replay as unknown as VideoTaskReplyDto;
    }
    const reply = await this.forward(caller, request, claim.held, claim.claimId);
    await this.idempotency.complete(claim.claimId, reply);
    return reply;
  }

  /** The request with its model (the configured one when it names none); VideoRequestRules has checked the rest. */
  private withDefaults(input: CreateVideoTaskDto): VideoRequest {
    return { ...input, model: input.model ?? this.config.VIDEO_DEFAULT_MODEL };
  }

  /**
   * What the upstream receives: the validated request, except that the
   * client's callback_url stays here (this service delivers signed callbacks
   * itself) and the upstream gets this service's callback endpoint instead.
   */
  private upstreamBody(request: VideoRequest): object {
    const { callback_url: _clientCallback, ...body } = request;
    const ours = this.callbackUrl.url;
    return ours ? { ...body, callback_url: ours } : body;
  }

  /**
   * Create the task upstream under its reservation, then settle to the
   * upstream's figure and store the task in one transaction. Any failure
   * before the task exists releases the reservation: nothing is charged. If
   * the process dies meanwhile, the recovery sweep releases it and frees the
   * Idempotency-Key (ReservationRecovery).
   */
  private async forward(caller: Principal, request: VideoRequest, reservation: Reservation, claimId: string | null): Promise<VideoTaskReplyDto> {
    let reply: VideoTaskReplyDto;
    try {
      reply = await this.upstream.createTask(this.upstreamBody(request));
    } catch (error) {
      // The upstream's refusal would come again, so a retry gets it replayed; other failures (the upstream busy, down
      // or silent) free the key. Either with the release, in its transaction.
      await this.credits.release(
        reservation,
        claimId === null
          ? undefined
          : (manager) =>
              error instanceof UpstreamRejectionException
                ? this.idempotency.failWithin(manager, claimId, error)
                : this.idempotency.releaseWithin(manager, claimId),
      );
      throw error;
    }
    const charged = await this.settleAndStore(caller, request, reply, reservation, claimId);
    // The task is stored and charged: a state reported meanwhile is the task's business now, not this reply's.
    await this.taskStates
      .applyEarlyStatuses(reply.task_id)
      .catch((error: unknown) => this.logger.error({ err: error, taskId: reply.task_id }, 'could not apply the states reported before the task was stored'));
    return toCreatedVideoTaskDto(reply, charged);
  }

  /**
   * Settles the charge and stores the task, naming its Idempotency-Key claim,
   * in one transaction: once it commits, a retry with the key finds the task
   * whatever fails afterwards. If it fails (an upstream task id already in
   * use, a reply the database cannot hold), nothing was stored and the
   * reservation is released: the client is not charged for a task this
   * service cannot show them.
   */
  private async settleAndStore(
    caller: Principal,
    request: VideoRequest,
    reply: VideoTaskReplyDto,
    reservation: Reservation,
    claimId: string | null,
  ): Promise<number> {
    try {
      return await this.tx.run(async (manager) => {
        const settled = await this.credits.settle(manager, reservation, reply.credits, reply.task_id);
        // A reply already terminal without a result gets no later state change that would refund it.
        const refundedAtCreate = isRefundedState(reply.state);
        const now = new Date();
        await this.tasks.insert(manager, {
          taskId: reply.task_id,
          userId: caller.id,
          model: reply.model ?? request.model,
          state: reply.state,
          credits: settled,
          request: { ...request },
          reply: { ...reply, credits: settled },
          callbackUrl: request.callback_url ?? null,
          errCode: reply.err_code ?? null,
          creations: null,
          refundedAt: refundedAtCreate ? now : null,
          idempotencyKeyId: claimId,
          createdAt: now,
          updatedAt: now,
          // A task not settled (running, or a success whose creations the create reply lacks) is first asked about in the
          // background after the shortest interval, unless that is off (TaskStatusPoller).
          nextCheckAt:
            isSettled({ state: reply.state, creations: null, updatedAt: now }, now) || this.config.VIDEO_STATUS_POLL_MS === 0
              ? null
              : nextStatusCheck(now, now, this.config.VIDEO_STATUS_POLL_MS),
        });
        if (refundedAtCreate) {
          await this.credits.refund(manager, caller.id, settled, reply.task_id);
        }
        return settled;
      });
    } catch (error) {
      this.logger.error({ err: error, taskId: reply.task_id, userId: caller.id }, 'could not store an upstream task; releasing the reservation');
      const unrecorded = new UnrecordedTaskException();
      // A retry must get this answer again, not create a second task: recorded with the release. Should that fail too,
      // the reservation stays open with its key claimed (409 for retries) until the recovery sweep releases both.
      await this.credits
        .release(reservation, claimId === null ? undefined : (manager) => this.idempotency.failWithin(manager, claimId, unrecorded))
        .catch((releaseError: unknown) => this.logger.error({ err: releaseError, taskId: reply.task_id, userId: caller.id }, 'could not release the reservation of an unrecorded task'));
      throw unrecorded;
    }
  }
}
