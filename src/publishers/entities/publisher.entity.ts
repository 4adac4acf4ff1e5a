import { Column, Entity, OneToMany, PrimaryColumn } from 'typeorm';
import { PublisherMemberEntity } from './publisher-member.entity';

/** The public registry's names. A banned publisher's members may no longer act for it (docs/api-rules.md §10). */
export const PUBLISHER_STATUSES = ['PublisherStatusActive', 'PublisherStatusBanned'] as const;
export type PublisherStatus = (typeof PUBLISHER_STATUSES)[number];

@Entity('publishers')
export class PublisherEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id!: string;

  @Column({ type: 'varchar', length: 256 })
  name!: string;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  @Column({ type: 'varchar', length: 2048, nullable: true })
  website!: string | null;

  @Column({ type: 'varchar', length: 2048, nullable: true })
  support!: string | null;

  @Column({ name: 'source_code_repo', type: 'varchar', length: 2048, nullable: true })
  sourceCodeRepo!: string | null;

  @Column({ type: 'varchar', length: 2048, nullable: true })
  logo!: string | null;

  @Column({ type: 'varchar', length: 32, default: 'PublisherStatusActive' })
  status!: PublisherStatus;

  @Column({ name: 'created_at', type: Date })
  createdAt!: Date;

  @OneToMany(() => PublisherMemberEntity, (member) => member.publisher)
  members?: PublisherMemberEntity[];
}
