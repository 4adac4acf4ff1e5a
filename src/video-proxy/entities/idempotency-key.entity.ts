import { Column, Entity, PrimaryColumn } from 'typeorm';

/** `failed`: the upstream created the task but it could not be recorded; `reply` is the error that was answered. */
export type IdempotencyState = 'in_flight' | 'done' | 'failed';

/** One use of an Idempotency-Key by a user: the request it named and, once done, the reply. */
@Entity('idempotency_keys')
export class IdempotencyKeyEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'user_id', type: 'varchar', length: 36 })
  userId!: string;

  @Column({ name: 'idempotency_key', type: 'varchar', length: 255 })
  key!: string;

  /** SHA-256 of the canonical JSON of the validated request. */
  @Column({ name: 'request_hash', type: 'varchar', length: 64 })
  requestHash!: string;

  @Column({ type: 'varchar', length: 16 })
  state!: IdempotencyState;

  @Column({ type: 'simple-json', nullable: true })
  reply!: Record<string, unknown> | null;

  @Column({ name: 'created_at', type: Date })
  createdAt!: Date;
}
