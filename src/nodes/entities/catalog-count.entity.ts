import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The listed catalog's size (active nodes), one row kept by triggers in the
 * same transactions that change it (migration 1764500000000), so a listing
 * reads its `total` instead of counting the catalog.
 */
@Entity('catalog_counts')
export class CatalogCountEntity {
  @PrimaryColumn({ type: 'integer' })
  id!: number;

  @Column({ type: 'integer' })
  listed!: number;
}
