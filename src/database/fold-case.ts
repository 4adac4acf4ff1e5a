/**
 * The case folding both databases apply when text is compared ignoring case
 * (the catalog search): lower case, with a final sigma `ς` as `σ`, so that a
 * word's last Σ matches however it was written. toLowerCase alone turns a
 * word's last Σ into ς and any other into σ, and PostgreSQL's LOWER keeps a
 * written ς: `ΟΔΗΓΟΣ` did not find `οδηγος`, nor `Ελληνικός` its capitals.
 *
 * SQL calls it `fold_case(text)`: on SQLite this function, registered on
 * each connection (database-options.ts); on PostgreSQL a SQL function of the
 * same folding (`replace(lower(...), 'ς', 'σ')`, migration
 * `1766400000000-case-folding`), which the search's trigram indexes are on.
 */
export function foldCase(text: string): string {
  return text.toLowerCase().replaceAll('ς', 'σ');
}

/** The SQL function name of foldCase on both databases. */
export const FOLD_CASE_SQL = 'fold_case';

/** `expression` (SQL), case folded by the database. */
export const foldedSql = (expression: string) => `${FOLD_CASE_SQL}(${expression})`;
