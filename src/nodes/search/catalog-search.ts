import { Provider } from '@nestjs/common';
import { DataSource, EntityManager, ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { foldCase } from '../../database/fold-case';
import { containsIgnoringCase, containsPattern, searchCondition, searchIndexQuery } from './search-sql';

/**
 * The catalog search (docs/api-rules.md §3: a case-insensitive substring of id, name,
 * description or author) as each database answers it from its own index.
 * The one place outside migrations that knows which database it runs on
 * (docs/decisions.md, "Catalog reads on indexes").
 */
export abstract class CatalogSearch {
  /**
   * Narrows `query`, over nodes as `alias`, to those that match `term`.
   * `walk`, for a page in the listing's order of a search alone, says how
   * common the term is, for a database that chooses how to find the page.
   */
  abstract matching<T extends ObjectLiteral>(query: SelectQueryBuilder<T>, alias: string, term: string, walk?: ListingWalk): SelectQueryBuilder<T>;

  /** Whether `matching` uses a ListingWalk: the caller reads the listed count for one only then. */
  abstract readonly choosesListingWalk: boolean;

  /**
   * Holds off every node write that could move a kept search total until
   * `manager`'s transaction ends, so a total counted in it stays exact
   * (migration 1766600000000).
   */
  abstract lockSearchTotals(manager: EntityManager): Promise<void>;

  /**
   * Narrows `query`, over nodes as `alias`, to the nodes whose id or name
   * shares a trigram with `term`, those sharing most first: the candidates
   * for the typo tolerance's scoring (fuzzy-match.ts, docs/api-rules.md
   * §9.2). The same on both databases but for the index that finds them.
   */
  closeTo<T extends ObjectLiteral>(query: SelectQueryBuilder<T>, alias: string, term: string): SelectQueryBuilder<T> {
    const trigrams = spreadOver(trigramsOf(foldCase(term)), MAX_CLOSE_TRIGRAMS);
    if (trigrams.length === 0) return query.andWhere('1 = 0');
    const holds = trigrams.map((_, i) => `(${containsIgnoringCase(`${alias}.id`, `closeTrigram${i}`)} OR ${containsIgnoringCase(`${alias}.name`, `closeTrigram${i}`)})`);
    this.narrowToTrigrams(query, alias, trigrams);
    return query
      .andWhere(`(${holds.join(' OR ')})`, Object.fromEntries(trigrams.map((trigram, i) => [`closeTrigram${i}`, containsPattern(trigram)])))
      .addSelect(holds.map((held) => `CASE WHEN ${held} THEN 1 ELSE 0 END`).join(' + '), 'shared_trigrams')
      .orderBy('shared_trigrams', 'DESC');
  }

  /** Narrows `query` from this database's own index of trigrams, where the LIKEs of closeTo cannot use one. */
  protected abstract narrowToTrigrams<T extends ObjectLiteral>(query: SelectQueryBuilder<T>, alias: string, trigrams: string[]): void;
}

/**
 * How common a searched term is, for a page in the listing's order: the
 * listed nodes it matches, of how many, and how many of its matches the page
 * is from the end the walk starts at (its offset and size).
 */
export interface ListingWalk {
  matches: number;
  listed: number;
  reach: number;
}

/** PostgreSQL: its planner answers the LIKEs from the pg_trgm indexes on each column's fold_case() (migration 1766400000000). */
export class PostgresCatalogSearch extends CatalogSearch {
  /** Its planner chooses how to find a page. */
  readonly choosesListingWalk = false;

  matching<T extends ObjectLiteral>(query: SelectQueryBuilder<T>, alias: string, term: string): SelectQueryBuilder<T> {
    return query.andWhere(searchCondition(term, false, alias), { pattern: containsPattern(term) });
  }

  /** A table lock: TypeORM has no statement for one. It conflicts with the ROW EXCLUSIVE lock the triggers take first. */
  async lockSearchTotals(manager: EntityManager): Promise<void> {
    await manager.query(`LOCK TABLE "search_totals" IN SHARE ROW EXCLUSIVE MODE`);
  }

  /** The same pg_trgm indexes answer closeTo's LIKEs. */
  protected narrowToTrigrams(): void {}
}

/**
 * SQLite: the FTS5 trigram table (`nodes_search`) narrows the rows first, the
 * LIKEs decide. Trigrams need three characters; shorter terms scan, as the
 * contract allows.
 */
export class SqliteCatalogSearch extends CatalogSearch {
  readonly choosesListingWalk = true;

  /**
   * Without `walk`, or for a rare term, from the trigram table: SQLite then
   * reads every match and sorts them. For a common term, walking the
   * listing's index and testing each row reads fewer rows: about `reach`
   * rows per share of the catalog the term matches (a term in one node of
   * ten at 50,000 nodes: 1,000 rows walked against 5,000 matches read).
   */
  matching<T extends ObjectLiteral>(query: SelectQueryBuilder<T>, alias: string, term: string, walk?: ListingWalk): SelectQueryBuilder<T> {
    query.andWhere(searchCondition(term, true, alias), { pattern: containsPattern(term) });
    const phrases = searchIndexQuery(term);
    if (!phrases || (walk && (walk.reach * walk.listed) / walk.matches < walk.matches)) return query;
    return query.andWhere(`${alias}.rowid IN (SELECT rowid FROM nodes_search WHERE nodes_search MATCH :phrases)`, { phrases });
  }

  /** Nothing to lock: a SQLite unit of work is already the only writer (TransactionRunner). */
  async lockSearchTotals(): Promise<void> {}

  /** The rows whose id or name holds one of the trigrams, from the trigram table. */
  protected narrowToTrigrams<T extends ObjectLiteral>(query: SelectQueryBuilder<T>, alias: string, trigrams: string[]): void {
    const match = `{id name} : (${trigrams.map((trigram) => `"${trigram.replace(/"/g, '""')}"`).join(' OR ')})`;
    query.andWhere(`${alias}.rowid IN (SELECT rowid FROM nodes_search WHERE nodes_search MATCH :closeMatch)`, { closeMatch: match });
  }
}

/**
 * The most trigrams of a term closeTo looks for. Each costs two LIKEs on
 * every candidate, and nearly every node shares one of a long term's: a
 * term of 195 characters took 15 s at 50,000 nodes, 8 trigrams (a term of
 * up to 10 characters, the typo'd name the tolerance is for) 0.1–0.4 s.
 */
const MAX_CLOSE_TRIGRAMS = 8;

/** At most `count` of `items`, evenly spread from the first to the last (all of them when there are no more). */
function spreadOver<T>(items: T[], count: number): T[] {
  if (items.length <= count) return items;
  return Array.from({ length: count }, (_, i) => items[Math.round((i * (items.length - 1)) / (count - 1))]);
}

/** The distinct three-character substrings of a text. */
function trigramsOf(text: string): string[] {
  const characters = [...text];
  return [...new Set(characters.slice(0, -2).map((_, index) => characters.slice(index, index + 3).join('')))];
}

export const catalogSearchProvider: Provider = {
  provide: CatalogSearch,
  inject: [DataSource],
  useFactory: (dataSource: DataSource): CatalogSearch =>
    dataSource.options.type === 'postgres' ? new PostgresCatalogSearch() : new SqliteCatalogSearch(),
};
