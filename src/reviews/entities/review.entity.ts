import { Column, Entity, PrimaryColumn } from 'typeorm';

/** One star review per user per node; a repeat review replaces the star. */
@Entity('reviews')
export class ReviewEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'node_id', type: 'varchar', length: 100 })
  nodeId!: string;

  @Column({ name: 'user_id', type: 'varchar', length: 36 })
  userId!: string;

  @Column({ type: 'integer' })
  star!: number;

  @Column({ name: 'created_at', type: Date })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: Date })
  updatedAt!: Date;
}
