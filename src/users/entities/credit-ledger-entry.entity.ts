import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

export const LEDGER_KINDS = ['grant', 'reserve', 'settle', 'release', 'refund'] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];

/** One movement of a user's credits; `balanceAfter` of the newest entry equals the balance. */
@Entity('credit_ledger')
export class CreditLedgerEntryEntity {
  /** Monotonic, so "newest first" never depends on clock resolution. */
  @PrimaryGeneratedColumn('increment')
  id!: number;

  @Column({ name: 'user_id', type: 'varchar', length: 36 })
  userId!: string;

  @Column({ type: 'varchar', length: 16 })
  kind!: LedgerKind;

  @Column({ type: 'integer' })
  amount!: number;

  @Column({ name: 'balance_after', type: 'integer' })
  balanceAfter!: number;

  @Column({ name: 'task_id', type: 'varchar', length: 128, nullable: true })
  taskId!: string | null;

  @Column({ name: 'created_at', type: Date })
  createdAt!: Date;
}
