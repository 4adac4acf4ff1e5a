import { Column } from 'typeorm';

/** The compatibility and tag columns that a node and each of its versions both carry. */
export abstract class CompatibilityColumns {
  @Column({ name: 'supported_os', type: 'simple-json' })
  supportedOs!: string[];

  @Column({ name: 'supported_accelerators', type: 'simple-json' })
  supportedAccelerators!: string[];

  @Column({ name: 'supported_app_version', type: 'varchar', length: 256, nullable: true })
  supportedAppVersion!: string | null;

  @Column({ name: 'supported_app_frontend_version', type: 'varchar', length: 256, nullable: true })
  supportedAppFrontendVersion!: string | null;

  @Column({ type: 'simple-json' })
  tags!: string[];

  @Column({ name: 'tags_admin', type: 'simple-json' })
  tagsAdmin!: string[];
}
