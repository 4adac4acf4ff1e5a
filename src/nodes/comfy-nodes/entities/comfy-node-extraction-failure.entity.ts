import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Why a version's node classes could not be extracted (its
 * `app_node_extract_status` is `failed`): the extractor's reason, or the one
 * its publisher reported. A version has a row only while its status is
 * `failed` with a reason; the review record of docs/api-rules.md §10 reads it.
 */
@Entity('comfy_node_extraction_failures')
export class ComfyNodeExtractionFailureEntity {
  @PrimaryColumn({ name: 'node_version_id', type: 'varchar', length: 36 })
  nodeVersionId!: string;

  @Column({ type: 'text' })
  reason!: string;
}
