import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The exact total of a common search, kept by triggers in the same
 * transactions as the node writes that change it (migration 1766600000000),
 * so a search found in thousands of nodes does not count them on every read
 * (NodesRepository.searchTotal).
 */
@Entity('search_totals')
export class SearchTotalEntity {
  /** The search term as given. */
  @PrimaryColumn({ type: 'varchar' })
  term!: string;

  /** The term's LIKE pattern (containsPattern), which the triggers match as the search does. */
  @Column({ type: 'varchar' })
  pattern!: string;

  @Column({ type: 'integer' })
  matches!: number;

  /** When it was counted: the oldest is dropped first when too many are kept. */
  @Column({ name: 'kept_at', type: Date })
  keptAt!: Date;
}
