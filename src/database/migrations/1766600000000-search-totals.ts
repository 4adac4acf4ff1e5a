import { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf, runStatements } from '../dialect';

const LISTED = `'NodeStatusActive'`;
const SEARCHED_COLUMNS = ['id', 'name', 'description', 'author'];
const SEARCHED = [...SEARCHED_COLUMNS, 'status'];

/** The search's own condition (docs/api-rules.md §3) on the node `row` (NEW or OLD) for the kept term: 1 when it is listed and matches, else 0. */
const matchOf = (row: string) =>
  `(CASE WHEN ${row}."status" = ${LISTED} AND (${SEARCHED_COLUMNS.map((column) => `fold_case(${row}."${column}") LIKE fold_case("search_totals"."pattern") ESCAPE '!'`).join(' OR ')}) THEN 1 ELSE 0 END)`;

/**
 * The totals of common searches, kept (docs/decisions.md, "A common
 * search's total is kept"): a search's exact `total` counts every match, so a term found in
 * thousands of nodes cost more the larger the catalog. NodesRepository keeps
 * the total of such a term in a row, and triggers move it in the same
 * transaction as any node write that makes a node start or stop matching it:
 * an insert or a delete, or a change of a searched column or of the status.
 * An edit that leaves every kept term's matches as they were changes no row.
 *
 * On PostgreSQL the trigger takes the table's ROW EXCLUSIVE lock before it
 * reads the kept rows, in a statement of its own, so that a total being
 * counted under the SHARE ROW EXCLUSIVE lock (see CatalogSearch.lockSearchTotals)
 * either counts this write or is seen by it.
 */
export class SearchTotals1766600000000 implements MigrationInterface {
  name = 'SearchTotals1766600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const table = `CREATE TABLE "search_totals" (
      "term" varchar PRIMARY KEY NOT NULL,
      "pattern" varchar NOT NULL,
      "matches" integer NOT NULL,
      "kept_at" ${dialectOf(queryRunner).timestamp} NOT NULL
    )`;
    const index = `CREATE INDEX "ix_search_totals_kept_at" ON "search_totals" ("kept_at")`;
    if (queryRunner.connection.driver.options.type === 'postgres') {
      const changed = SEARCHED.map((column) => `OLD."${column}" IS DISTINCT FROM NEW."${column}"`).join(' OR ');
      const matchingIn = (rows: string) => `(SELECT COUNT(*) FROM ${rows} AS "node" WHERE ${matchOf('"node"')} = 1)`;
      await runStatements(queryRunner, [
        table,
        index,
        // Inserts and deletes once per statement (a bulk load moves each total once), from the statement's rows.
        `CREATE FUNCTION "search_totals_rows"() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN
            LOCK TABLE "search_totals" IN ROW EXCLUSIVE MODE;
            IF TG_OP = 'INSERT' THEN
              UPDATE "search_totals" SET "matches" = "matches" + ${matchingIn('"inserted_nodes"')} WHERE ${matchingIn('"inserted_nodes"')} > 0;
            ELSE
              UPDATE "search_totals" SET "matches" = "matches" - ${matchingIn('"deleted_nodes"')} WHERE ${matchingIn('"deleted_nodes"')} > 0;
            END IF;
            RETURN NULL;
          END $$`,
        `CREATE FUNCTION "search_totals_update"() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN
            LOCK TABLE "search_totals" IN ROW EXCLUSIVE MODE;
            UPDATE "search_totals" SET "matches" = "matches" + ${matchOf('NEW')} - ${matchOf('OLD')} WHERE ${matchOf('NEW')} <> ${matchOf('OLD')};
            RETURN NULL;
          END $$`,
        `CREATE FUNCTION "search_totals_truncate"() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN
            UPDATE "search_totals" SET "matches" = 0;
            RETURN NULL;
          END $$`,
        `CREATE TRIGGER "search_totals_insert" AFTER INSERT ON "nodes" REFERENCING NEW TABLE AS "inserted_nodes"
          FOR EACH STATEMENT EXECUTE FUNCTION "search_totals_rows"()`,
        `CREATE TRIGGER "search_totals_delete" AFTER DELETE ON "nodes" REFERENCING OLD TABLE AS "deleted_nodes"
          FOR EACH STATEMENT EXECUTE FUNCTION "search_totals_rows"()`,
        `CREATE TRIGGER "search_totals_update" AFTER UPDATE OF ${SEARCHED.map((column) => `"${column}"`).join(', ')} ON "nodes"
          FOR EACH ROW WHEN (${changed}) EXECUTE FUNCTION "search_totals_update"()`,
        `CREATE TRIGGER "search_totals_truncate" AFTER TRUNCATE ON "nodes" FOR EACH STATEMENT EXECUTE FUNCTION "search_totals_truncate"()`,
      ]);
      return;
    }
    // SQLite: one writer at a time, row triggers only.
    const changed = SEARCHED.map((column) => `old."${column}" IS NOT new."${column}"`).join(' OR ');
    await runStatements(queryRunner, [
      table,
      index,
      `CREATE TRIGGER "search_totals_insert" AFTER INSERT ON "nodes" BEGIN
        UPDATE "search_totals" SET "matches" = "matches" + 1 WHERE ${matchOf('new')} = 1;
      END`,
      `CREATE TRIGGER "search_totals_delete" AFTER DELETE ON "nodes" BEGIN
        UPDATE "search_totals" SET "matches" = "matches" - 1 WHERE ${matchOf('old')} = 1;
      END`,
      `CREATE TRIGGER "search_totals_update" AFTER UPDATE OF ${SEARCHED.map((column) => `"${column}"`).join(', ')} ON "nodes"
        WHEN ${changed} BEGIN
        UPDATE "search_totals" SET "matches" = "matches" + ${matchOf('new')} - ${matchOf('old')} WHERE ${matchOf('new')} <> ${matchOf('old')};
      END`,
    ]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const triggers = ['insert', 'delete', 'update'];
    if (queryRunner.connection.driver.options.type === 'postgres') {
      await runStatements(queryRunner, [
        ...[...triggers, 'truncate'].map((event) => `DROP TRIGGER "search_totals_${event}" ON "nodes"`),
        ...['rows', 'update', 'truncate'].map((name) => `DROP FUNCTION "search_totals_${name}"()`),
        `DROP TABLE "search_totals"`,
      ]);
      return;
    }
    await runStatements(queryRunner, [...triggers.map((event) => `DROP TRIGGER "search_totals_${event}"`), `DROP TABLE "search_totals"`]);
  }
}
