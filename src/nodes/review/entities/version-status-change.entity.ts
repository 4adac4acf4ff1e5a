import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { NodeVersionStatus } from '../../entities/node-version.entity';

/** One change of a version's status, as its review record's history shows it (docs/api-rules.md §10). */
@Entity('version_status_changes')
@Index('ix_version_status_changes_version', ['nodeVersionId', 'id'])
export class VersionStatusChangeEntity {
  /** In the order the changes were made (two may share a millisecond). */
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ name: 'node_version_id', type: 'varchar', length: 36 })
  nodeVersionId!: string;

  @Column({ type: 'varchar', length: 32 })
  status!: NodeVersionStatus;

  @Column({ type: 'text', nullable: true })
  reason!: string | null;

  @Column({ type: Date })
  at!: Date;

  /**
   * The archive a change to active released: the version's at that moment
   * (null for other changes, and for a version without one). A released
   * archive stays downloadable after its version moves on (NodeArchiveAccess).
   */
  @Column({ name: 'released_archive_sha256', type: 'varchar', length: 64, nullable: true })
  releasedArchiveSha256!: string | null;

  /** `checks`, or the id of the user who made the change (an admin, or the member who published, uploaded or deleted). */
  @Column({ name: 'changed_by', type: 'varchar', length: 64 })
  by!: string;
}
