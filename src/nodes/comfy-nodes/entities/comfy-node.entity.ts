import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A node class a version provides (docs/api-rules.md §9.3), as its archive's
 * extraction found it or its publisher reported it. The JSON text fields are
 * kept as the replies send them: strings holding JSON text.
 */
@Entity('comfy_nodes')
export class ComfyNodeEntity {
  @PrimaryColumn({ name: 'node_version_id', type: 'varchar', length: 36 })
  nodeVersionId!: string;

  /** The class's key in NODE_CLASS_MAPPINGS; unique per version, and how a workflow names it. */
  @PrimaryColumn({ type: 'varchar', length: 256 })
  name!: string;

  @Column({ type: 'text', nullable: true })
  category!: string | null;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  @Column({ type: 'text', nullable: true })
  function!: string | null;

  @Column({ name: 'input_types', type: 'text', nullable: true })
  inputTypes!: string | null;

  @Column({ name: 'return_types', type: 'text', nullable: true })
  returnTypes!: string | null;

  @Column({ name: 'return_names', type: 'text', nullable: true })
  returnNames!: string | null;

  @Column({ name: 'output_is_list', type: 'simple-json', nullable: true })
  outputIsList!: boolean[] | null;

  @Column({ type: 'boolean', nullable: true })
  deprecated!: boolean | null;

  @Column({ type: 'boolean', nullable: true })
  experimental!: boolean | null;
}
