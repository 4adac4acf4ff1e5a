import { Column, Entity, PrimaryColumn } from 'typeorm';
import { CompatibilityColumns } from './compatibility-columns';

export const NODE_VERSION_STATUSES = [
  'NodeVersionStatusActive',
  'NodeVersionStatusDeleted',
  'NodeVersionStatusBanned',
  'NodeVersionStatusPending',
  'NodeVersionStatusFlagged',
] as const;
export type NodeVersionStatus = (typeof NODE_VERSION_STATUSES)[number];
/** Only active versions install: pending, flagged, banned and deleted ones never do (docs/api-rules.md §10). */
export const INSTALLABLE: NodeVersionStatus = 'NodeVersionStatusActive';
/** A version waiting for its archive, then for the checks on it. */
export const PENDING: NodeVersionStatus = 'NodeVersionStatusPending';

@Entity('node_versions')
export class NodeVersionEntity extends CompatibilityColumns {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'node_id', type: 'varchar', length: 100 })
  nodeId!: string;

  /** A valid semantic version, unique per node. */
  @Column({ type: 'varchar', length: 256 })
  version!: string;

  @Column({ type: 'text', nullable: true })
  changelog!: string | null;

  @Column({ type: 'simple-json' })
  dependencies!: string[];

  @Column({ type: 'boolean', default: false })
  deprecated!: boolean;

  /** A link an admin gave a version without an archive; an archive's link is made for each reply (ArchivesService.linksFor). */
  @Column({ name: 'download_url', type: 'varchar', length: 2048, nullable: true })
  downloadUrl!: string | null;

  /** sha256 of the archive uploaded for this version (docs/api-rules.md §6); replies' downloadUrl points at it. */
  @Column({ name: 'archive_sha256', type: 'varchar', length: 64, nullable: true })
  archiveSha256!: string | null;

  @Column({ type: 'varchar', length: 32 })
  status!: NodeVersionStatus;

  @Column({ name: 'status_reason', type: 'text', nullable: true })
  statusReason!: string | null;

  @Column({ name: 'app_node_extract_status', type: 'varchar', length: 64, nullable: true })
  appNodeExtractStatus!: string | null;

  @Column({ name: 'created_at', type: Date })
  createdAt!: Date;

  /** When the version was last changed after its creation (for `?timestamp` syncs, docs/api-rules.md §6); null until then. */
  @Column({ name: 'updated_at', type: Date, nullable: true })
  updatedAt!: Date | null;
}
