import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('users')
export class UserEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  /** Stored lower-cased so uniqueness ignores case. */
  @Column({ type: 'varchar', length: 320, unique: true })
  email!: string;

  @Column({ type: 'varchar', length: 256 })
  name!: string;

  @Column({ name: 'is_admin', type: 'boolean', default: false })
  isAdmin!: boolean;

  /** Credit balance; only ever changed by conditional updates that also write a ledger entry. */
  @Column({ type: 'integer', default: 0 })
  credits!: number;

  /** Signs the user's task callbacks; created on first use, rotatable. */
  @Column({ name: 'webhook_secret', type: 'varchar', length: 128, nullable: true })
  webhookSecret!: string | null;

  @Column({ name: 'created_at', type: Date })
  createdAt!: Date;
}
