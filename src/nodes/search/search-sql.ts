import { foldedSql } from '../../database/fold-case';

/**
 * The SQL of a catalog search (docs/api-rules.md §3: a case-insensitive substring of
 * id, name, description or author), as both databases run it. The LIKEs
 * decide; the trigram structures only narrow (see docs/decisions.md,
 * "Catalog reads on indexes").
 */

/** What a search looks in (docs/api-rules.md §3). */
const SEARCHED_COLUMNS = ['id', 'name', 'description', 'author'];
const ASCII = /^\p{ASCII}*$/u;

/**
 * LIKE pattern for a literal substring, with '!' as the escape character on
 * both databases. Its case is left as given: the database folds it with the
 * column (see containsIgnoringCase).
 */
export function containsPattern(text: string): string {
  return `%${text.replace(/[!%_]/g, (c) => `!${c}`)}%`;
}

/**
 * `column` holds the pattern in `parameter` (from containsPattern), ignoring
 * case: the database folds both sides with `fold_case` (src/database/fold-case.ts),
 * one function for the term and the text it was typed from. Folded in
 * JavaScript, a term differed from PostgreSQL's folding of the same text
 * (İ, a final sigma), and a node was not found by its own name.
 */
export const containsIgnoringCase = (column: string, parameter: string) =>
  `${foldedSql(column)} LIKE ${foldedSql(`:${parameter}`)} ESCAPE '!'`;

/** The search predicate (docs/api-rules.md §3): the column, case folded, contains the term. */
const containsFolded = (column: string) => containsIgnoringCase(column, 'pattern');

/**
 * The same predicate on SQLite for a term of ASCII characters only, without
 * calling the JavaScript `fold_case()` (registered in database-options.ts)
 * on every row a search reads.
 * SQLite's own LIKE folds ASCII letters exactly as fold_case does, and a
 * match of an ASCII term is all ASCII characters; fold_case turns only
 * two other characters into ASCII ones (checked over all of Unicode), so a
 * column holding one of them goes through `fold_case()` where the term can
 * match what it becomes: U+212A KELVIN SIGN becomes `k`, which a term with
 * a `k` can match; U+0130 İ becomes `i` and U+0307, which is not ASCII, so
 * only a term ending in `i` can match into it. Other terms need no fallback
 * (testing for it read each column twice more: half of a common term's
 * walk at 50,000 nodes).
 */
function containsAsciiOnSqlite(term: string): (column: string) => string {
  const lowered = term.toLowerCase();
  const folding = [...(lowered.includes('k') ? ['\u212a'] : []), ...(lowered.endsWith('i') ? ['\u0130'] : [])];
  if (folding.length === 0) return (column) => `${column} LIKE :pattern ESCAPE '!'`;
  const holdsFolding = (column: string) => folding.map((character) => `instr(${column}, '${character}')`).join(' OR ');
  return (column) => `(${column} LIKE :pattern ESCAPE '!' OR ((${holdsFolding(column)}) AND ${containsFolded(column)}))`;
}

/** The search's condition over the node columns of `alias` (parameter `:pattern`, from containsPattern). */
export function searchCondition(term: string, sqlite: boolean, alias: string): string {
  const contains = sqlite && ASCII.test(term) ? containsAsciiOnSqlite(term) : containsFolded;
  return `(${SEARCHED_COLUMNS.map((column) => contains(`${alias}.${column}`)).join(' OR ')})`;
}

/** The most phrases a search asks the trigram table for (see searchIndexQuery); a term needing more scans. */
const SEARCH_INDEX_PHRASES = 8;

/**
 * The FTS5 query that finds every row a search can match on SQLite, or
 * undefined where the trigram table cannot narrow it (the rows are then
 * tested by the LIKEs alone). The table folds case one character at a time,
 * so it keeps U+0130 İ where toLowerCase makes it `i` and U+0307: a term can
 * match into an İ where it has `i` + U+0307, or where it ends in `i`, and
 * its own İ matches a column's `i` + U+0307. Each such place is asked for
 * both ways, as phrases joined by OR. Trigrams need three characters.
 */
export function searchIndexQuery(term: string): string | undefined {
  const places = [...term.matchAll(/[iI](?:\u0307|$)|\u0130/g)].map((match) => ({ index: match.index, text: match[0] }));
  if (2 ** places.length > SEARCH_INDEX_PHRASES) return undefined;
  let spellings = [term.slice(0, places[0]?.index ?? term.length)];
  places.forEach(({ index, text }, position) => {
    const rest = term.slice(index + text.length, places[position + 1]?.index ?? term.length);
    const other = text === '\u0130' ? 'i\u0307' : '\u0130';
    spellings = spellings.flatMap((start) => [start + text + rest, start + other + rest]);
  });
  if (spellings.some((spelling) => [...spelling].length < 3)) return undefined;
  return spellings.map((spelling) => `"${spelling.replace(/"/g, '""')}"`).join(' OR ');
}
