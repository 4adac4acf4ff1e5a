import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A node a user saved for later, with an optional private note. One per user and node. */
@Entity('bookmarks')
export class BookmarkEntity {
  @PrimaryColumn({ name: 'user_id', type: 'varchar', length: 36 })
  userId!: string;

  @PrimaryColumn({ name: 'node_id', type: 'varchar', length: 100 })
  nodeId!: string;

  @Column({ type: 'varchar', length: 280, nullable: true })
  note!: string | null;

  @Column({ name: 'created_at', type: Date })
  createdAt!: Date;
}
