import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Credits taken for work that has not finished yet. The row lives exactly as
 * long as the reservation is open: settling or releasing it deletes the row,
 * and whoever deletes it (the request, or the recovery sweep after a crash)
 * is the one that moves the credits, so it happens once.
 */
@Entity('credit_reservations')
export class CreditReservationEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'user_id', type: 'varchar', length: 36 })
  userId!: string;

  @Column({ type: 'integer' })
  amount!: number;

  /** The Idempotency-Key of the request that holds it, freed with it when the sweep releases it. */
  @Column({ name: 'idempotency_key', type: 'varchar', length: 255, nullable: true })
  idempotencyKey!: string | null;

  @Column({ name: 'created_at', type: Date })
  createdAt!: Date;
}
