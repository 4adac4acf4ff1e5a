import { Column, Entity, PrimaryColumn } from 'typeorm';

/** `canceled` is this service's own terminal state (POST …/cancel, docs/api-rules.md §4.4); the upstream may report it too. */
export const VIDEO_TASK_STATES = ['created', 'processing', 'queueing', 'success', 'failed', 'canceled'] as const;
export type VideoTaskState = (typeof VIDEO_TASK_STATES)[number];

export interface VideoCreation {
  id: string;
  url: string;
  /** Absent when the upstream gave none. */
  cover_url?: string;
}

/** A task created on the upstream for a user, with what it cost. */
@Entity('video_tasks')
export class VideoTaskEntity {
  /** The upstream's task id, which is also the id clients see. */
  @PrimaryColumn({ name: 'task_id', type: 'varchar', length: 128 })
  taskId!: string;

  @Column({ name: 'user_id', type: 'varchar', length: 36 })
  userId!: string;

  @Column({ type: 'varchar', length: 32 })
  model!: string;

  @Column({ type: 'varchar', length: 16 })
  state!: VideoTaskState;

  /** Credits charged after settlement. */
  @Column({ type: 'integer' })
  credits!: number;

  /** The body forwarded to the upstream. */
  @Column({ type: 'simple-json' })
  request!: Record<string, unknown>;

  /** The reply the client got (the echo fields as the upstream returned them). */
  @Column({ type: 'simple-json' })
  reply!: Record<string, unknown>;

  @Column({ name: 'callback_url', type: 'varchar', length: 2048, nullable: true })
  callbackUrl!: string | null;

  /** The upstream's error code once the task failed. */
  @Column({ name: 'err_code', type: 'varchar', length: 128, nullable: true })
  errCode!: string | null;

  /** The generated videos once the task succeeded. */
  @Column({ type: 'simple-json', nullable: true })
  creations!: VideoCreation[] | null;

  /** Set, exactly once, when a failed or canceled task's credits were refunded. */
  @Column({ name: 'refunded_at', type: Date, nullable: true })
  refundedAt!: Date | null;

  /** The Idempotency-Key claim the task was created under (IdempotencyKeyEntity.id), if any. */
  @Column({ name: 'idempotency_key_id', type: 'varchar', length: 36, nullable: true })
  idempotencyKeyId!: string | null;

  @Column({ name: 'created_at', type: Date })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: Date })
  updatedAt!: Date;

  /** When the service next asks the upstream about the task (TaskStatusPoller); null once it is settled (VideoTasksService.isSettled). */
  @Column({ name: 'next_check_at', type: Date, nullable: true })
  nextCheckAt!: Date | null;
}
