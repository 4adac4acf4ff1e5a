import { MigrationInterface, QueryRunner } from 'typeorm';
import { runStatements } from '../dialect';

const SEARCHED_COLUMNS = ['id', 'name', 'description', 'author'];

/**
 * One case folding for the catalog search on both sides of a comparison
 * (src/database/fold-case.ts): on PostgreSQL the SQL function `fold_case`
 * (lower case, a final sigma as σ; a one-expression SQL function, which the
 * planner inlines; `replace`, as `translate` cost three times as much per
 * row), and the search's trigram indexes rebuilt on it, so that
 * `fold_case(column) LIKE fold_case(term)` still finds its rows from them.
 * SQLite registers its own `fold_case` on each connection: nothing to do.
 */
export class CaseFolding1766400000000 implements MigrationInterface {
  name = 'CaseFolding1766400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.driver.options.type !== 'postgres') return;
    await runStatements(queryRunner, [
      `CREATE FUNCTION fold_case(value text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT replace(lower(value), 'ς', 'σ') $$`,
      ...SEARCHED_COLUMNS.flatMap((column) => [
        `DROP INDEX "ix_nodes_search_${column}"`,
        `CREATE INDEX "ix_nodes_search_${column}" ON "nodes" USING gin (fold_case("${column}") gin_trgm_ops) WITH (fastupdate = off)`,
      ]),
    ]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.driver.options.type !== 'postgres') return;
    await runStatements(queryRunner, [
      ...SEARCHED_COLUMNS.flatMap((column) => [
        `DROP INDEX "ix_nodes_search_${column}"`,
        `CREATE INDEX "ix_nodes_search_${column}" ON "nodes" USING gin (lower("${column}") gin_trgm_ops) WITH (fastupdate = off)`,
      ]),
      `DROP FUNCTION fold_case(text)`,
    ]);
  }
}
