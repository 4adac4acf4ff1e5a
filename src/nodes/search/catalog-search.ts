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

  /**
   * Narrows `query`, over nodes as `alias`, to at most `limit` nodes whose id
   * or name shares enough trigrams with `term` to be a typo of it, likeliest
   * first: candidates for the similarity scoring of fuzzy-match.ts, which
   * decides (docs/api-rules.md §9.2).
   */
  abstract closeTo<T extends ObjectLiteral>(query: SelectQueryBuilder<T>, alias: string, term: string, limit: number): SelectQueryBuilder<T>;
}

/** PostgreSQL: its planner answers the LIKEs from the pg_trgm indexes on each lower()ed column. */
export class PostgresCatalogSearch extends CatalogSearch {
  matching<T extends ObjectLiteral>(query: SelectQueryBuilder<T>, alias: string, term: string): SelectQueryBuilder<T> {
    return query.andWhere(searchCondition(term, false, alias), { pattern: containsPattern(term) });
  }

  /** pg_trgm's word similarity (`<%`, threshold pg_trgm.word_similarity_threshold, 0.6 by default), from the same GIN indexes. */
  closeTo<T extends ObjectLiteral>(query: SelectQueryBuilder<T>, alias: string, term: string, limit: number): SelectQueryBuilder<T> {
    const [name, id] = [`LOWER(${alias}.name)`, `LOWER(${alias}.id)`];
    return query
      .andWhere(`(:closeTerm <% ${name} OR :closeTerm <% ${id})`, { closeTerm: term.toLowerCase() })
      .addSelect(`GREATEST(word_similarity(:closeTerm, ${name}), word_similarity(:closeTerm, ${id}))`, 'closeness')
      .orderBy('closeness', 'DESC')
      .limit(limit);
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

  /** The rows of the trigram table sharing most trigrams with the term in id or name (FTS5's bm25 rank). */
  closeTo<T extends ObjectLiteral>(query: SelectQueryBuilder<T>, alias: string, term: string, limit: number): SelectQueryBuilder<T> {
    const trigrams = trigramsOf(term.toLowerCase());
    if (trigrams.length === 0) return query.andWhere('1 = 0');
    const match = `{id name} : (${trigrams.map((trigram) => `"${trigram.replace(/"/g, '""')}"`).join(' OR ')})`;
    const candidates = `SELECT rowid FROM nodes_search WHERE nodes_search MATCH :closeMatch ORDER BY rank LIMIT ${Number(limit)}`;
    return query.andWhere(`${alias}.rowid IN (${candidates})`, { closeMatch: match }).limit(limit);
  }
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
