import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The exact total of a common search, kept by triggers in the same
 * transactions as the node writes that change it (migration 1766600000000),
 * so a search found in thousands of nodes does not count them on every read
 * (NodesRepository.searchTotal).
 */
@Entity('search_totals')
export class SearchTotalEntity {
  /** The search term as the request gave it, trimmed; case counts (`Comfy` and `comfy` are two rows of one total). */
  @PrimaryColumn({ type: 'varchar' })
  term!: string;

  /** The term's LIKE pattern (containsPattern), which the triggers match as the search does. */
  @Column({ type: 'varchar' })
  pattern!: string;

  @Column({ type: 'integer' })
  matches!: number;

  /** When it was counted: beyond KEPT_SEARCH_TOTALS, the first kept is dropped first (not the least read: a read writes nothing). */
  @Column({ name: 'kept_at', type: Date })
  keptAt!: Date;
}
