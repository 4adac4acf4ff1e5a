import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/**
 * The outbox of client callbacks: one row per task state change, written in
 * the same transaction as the change, delivered (with retries) by the worker.
 */
@Entity('callback_deliveries')
export class CallbackDeliveryEntity {
  /** Monotonic: a task's deliveries go out in this order. */
  @PrimaryGeneratedColumn('increment')
  id!: number;

  @Column({ name: 'task_id', type: 'varchar', length: 128 })
  taskId!: string;

  @Column({ name: 'user_id', type: 'varchar', length: 36 })
  userId!: string;

  @Column({ type: 'varchar', length: 2048 })
  url!: string;

  /** The exact JSON that is sent and signed. */
  @Column({ type: 'text' })
  body!: string;

  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  @Column({ name: 'next_attempt_at', type: Date })
  nextAttemptAt!: Date;

  @Column({ name: 'delivered_at', type: Date, nullable: true })
  deliveredAt!: Date | null;

  /** Set when every attempt failed (or the address is refused). */
  @Column({ name: 'abandoned_at', type: Date, nullable: true })
  abandonedAt!: Date | null;

  @Column({ name: 'last_error', type: 'varchar', length: 512, nullable: true })
  lastError!: string | null;

  @Column({ name: 'created_at', type: Date })
  createdAt!: Date;
}
