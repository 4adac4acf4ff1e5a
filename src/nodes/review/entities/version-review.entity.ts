import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Finding } from '../../archive-checks/findings';

/** What the checks found in a version's archive (docs/api-rules.md §10): the latest check of its latest archive. */
@Entity('version_reviews')
export class VersionReviewEntity {
  @PrimaryColumn({ name: 'node_version_id', type: 'varchar', length: 36 })
  nodeVersionId!: string;

  /** The archive the findings are of. */
  @Column({ name: 'archive_sha256', type: 'varchar', length: 64 })
  archiveSha256!: string;

  @Column({ type: 'simple-json' })
  findings!: Finding[];

  @Column({ name: 'checked_at', type: Date })
  checkedAt!: Date;
}
