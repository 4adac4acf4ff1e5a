import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { PublisherEntity } from './publisher.entity';

export const PUBLISHER_ROLES = ['owner', 'member'] as const;
export type PublisherRole = (typeof PUBLISHER_ROLES)[number];

@Entity('publisher_members')
export class PublisherMemberEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'publisher_id', type: 'varchar', length: 64 })
  publisherId!: string;

  @Column({ name: 'user_id', type: 'varchar', length: 36 })
  userId!: string;

  @Column({ type: 'varchar', length: 16 })
  role!: PublisherRole;

  @Column({ name: 'created_at', type: Date })
  createdAt!: Date;

  @ManyToOne(() => PublisherEntity, (publisher) => publisher.members)
  @JoinColumn({ name: 'publisher_id' })
  publisher?: PublisherEntity;
}
