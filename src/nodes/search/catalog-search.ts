import { Provider } from '@nestjs/common';
import { DataSource, ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { containsPattern, searchCondition, searchIndexQuery } from './search-sql';

/**
 * The catalog search (docs/api-rules.md §3: a case-insensitive substring of id, name,
 * description or author) as each database answers it from its own index.
 * The one place outside migrations that knows which database it runs on
 * (docs/decisions.md, "Catalog reads on indexes").
 */
export abstract class CatalogSearch {
  /** Narrows `query`, over nodes as `alias`, to those that match `term`. */
  abstract matching<T extends ObjectLiteral>(query: SelectQueryBuilder<T>, alias: string, term: string): SelectQueryBuilder<T>;
}

/** PostgreSQL: its planner answers the LIKEs from the pg_trgm indexes on each lower()ed column. */
export class PostgresCatalogSearch extends CatalogSearch {
  matching<T extends ObjectLiteral>(query: SelectQueryBuilder<T>, alias: string, term: string): SelectQueryBuilder<T> {
    return query.andWhere(searchCondition(term, false, alias), { pattern: containsPattern(term) });
  }
}

/**
 * SQLite: the FTS5 trigram table (`nodes_search`) narrows the rows first, the
 * LIKEs decide. Trigrams need three characters; shorter terms scan, as the
 * contract allows.
 */
export class SqliteCatalogSearch extends CatalogSearch {
  matching<T extends ObjectLiteral>(query: SelectQueryBuilder<T>, alias: string, term: string): SelectQueryBuilder<T> {
    query.andWhere(searchCondition(term, true, alias), { pattern: containsPattern(term) });
    const phrases = searchIndexQuery(term);
    return phrases ? query.andWhere(`${alias}.rowid IN (SELECT rowid FROM nodes_search WHERE nodes_search MATCH :phrases)`, { phrases }) : query;
  }
}

export const catalogSearchProvider: Provider = {
  provide: CatalogSearch,
  inject: [DataSource],
  useFactory: (dataSource: DataSource): CatalogSearch =>
    dataSource.options.type === 'postgres' ? new PostgresCatalogSearch() : new SqliteCatalogSearch(),
};
