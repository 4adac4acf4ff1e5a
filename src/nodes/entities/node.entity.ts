import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { CompatibilityColumns } from './compatibility-columns';
import { NodeVersionEntity } from './node-version.entity';

export const NODE_STATUSES = ['NodeStatusActive', 'NodeStatusDeleted', 'NodeStatusBanned'] as const;
export type NodeStatus = (typeof NODE_STATUSES)[number];

/** The status detail of the nodes of a banned publisher. */
export const PUBLISHER_BANNED_DETAIL = 'its publisher was banned';

@Entity('nodes')
export class NodeEntity extends CompatibilityColumns {
  /** As the publisher spelled it. */
  @PrimaryColumn({ type: 'varchar', length: 100 })
  id!: string;

  /** Lower-cased id: node ids are unique and looked up ignoring case. */
  @Column({ name: 'normalized_id', type: 'varchar', length: 100, unique: true })
  normalizedId!: string;

  @Column({ name: 'publisher_id', type: 'varchar', length: 64 })
  publisherId!: string;

  /** A copy of its publisher's name, which `sort=publisher_name` orders by; a rename updates it (NodesService.onModuleInit). */
  @Column({ name: 'publisher_name', type: 'varchar', length: 256 })
  publisherName!: string;

  @Column({ type: 'varchar', length: 256 })
  name!: string;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  @Column({ type: 'varchar', length: 256, nullable: true })
  author!: string | null;

  @Column({ type: 'varchar', length: 256, nullable: true })
  category!: string | null;

  @Column({ type: 'varchar', length: 2048, nullable: true })
  license!: string | null;

  @Column({ type: 'varchar', length: 2048, nullable: true })
  icon!: string | null;

  @Column({ name: 'banner_url', type: 'varchar', length: 2048, nullable: true })
  bannerUrl!: string | null;

  @Column({ type: 'varchar', length: 2048, nullable: true })
  repository!: string | null;

  @Column({ type: 'varchar', length: 2048, nullable: true })
  homepage!: string | null;

  @Column({ name: 'preempted_app_node_names', type: 'simple-json' })
  preemptedAppNodeNames!: string[];

  @Column({ type: 'simple-json', nullable: true })
  translations!: Record<string, Record<string, unknown>> | null;

  @Column({ type: 'varchar', length: 32 })
  status!: NodeStatus;

  @Column({ name: 'status_detail', type: 'text', nullable: true })
  statusDetail!: string | null;

  @Column({ name: 'search_ranking', type: 'integer', default: 0 })
  searchRanking!: number;

  @Column({ type: 'integer', default: 0 })
  downloads!: number;

  @Column({ name: 'github_stars', type: 'integer', default: 0 })
  githubStars!: number;

  /** Mean of the node's reviews, recomputed from SUM/COUNT inside the review transaction. */
  @Column({ type: 'double precision', default: 0 })
  rating!: number;

  /** Denormalised result of the latest-version rule, refreshed whenever a version changes. */
  @Column({ name: 'latest_version_id', type: 'varchar', length: 36, nullable: true })
  latestVersionId!: string | null;

  @Column({ name: 'created_at', type: Date })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: Date })
  updatedAt!: Date;


  @ManyToOne(() => NodeVersionEntity, { createForeignKeyConstraints: false })
  @JoinColumn({ name: 'latest_version_id' })
  latestVersion?: NodeVersionEntity | null;
}
