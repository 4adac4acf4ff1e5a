import { MigrationInterface, QueryRunner } from 'typeorm';
import { runStatements } from '../dialect';

const SEARCHED_COLUMNS = ['id', 'name', 'description', 'author'];

/**
 * Catalog reads on indexes (docs/api-rules.md §7). Listing: a partial index on the
 * active nodes in exactly the listing's order (search_ranking DESC,
 * downloads DESC, id), so a page is an index walk and a deep page walks only
 * the index. Search (a substring of id, name, description or author,
 * ignoring case): trigram indexes that answer `LIKE '%term%'` for terms of
 * three characters or more — pg_trgm GIN indexes on each lower()ed column
 * on PostgreSQL, an FTS5 trigram table on SQLite kept in step with `nodes`
 * by triggers, inside the same transactions that write the rows.
 */
export class CatalogSearch1764200000000 implements MigrationInterface {
  name = 'CatalogSearch1764200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const listing = `CREATE INDEX "ix_nodes_catalog" ON "nodes" ("search_ranking" DESC, "downloads" DESC, "id") WHERE "status" = 'NodeStatusActive'`;
    if (queryRunner.connection.driver.options.type === 'postgres') {
      await runStatements(queryRunner, [
        `CREATE EXTENSION IF NOT EXISTS pg_trgm`,
        `DROP INDEX "ix_nodes_listing"`,
        listing,
        // fastupdate off: new rows go straight into the index instead of a pending list that every search
        // scans linearly until the next vacuum (node writes are rare; searches are not).
        ...SEARCHED_COLUMNS.map(
          (column) => `CREATE INDEX "ix_nodes_search_${column}" ON "nodes" USING gin (lower("${column}") gin_trgm_ops) WITH (fastupdate = off)`,
        ),
      ]);
      return;
    }
    const values = (row: string) => SEARCHED_COLUMNS.map((column) => `${row}."${column}"`).join(', ');
    const columns = SEARCHED_COLUMNS.map((column) => `"${column}"`).join(', ');
    await runStatements(queryRunner, [
      `DROP INDEX "ix_nodes_listing"`,
      listing,
      // External content: the text stays in `nodes`; the table holds only the trigram index, keyed by rowid.
      `CREATE VIRTUAL TABLE "nodes_search" USING fts5(${columns}, content='nodes', content_rowid='rowid', tokenize='trigram')`,
      `CREATE TRIGGER "nodes_search_insert" AFTER INSERT ON "nodes" BEGIN
        INSERT INTO "nodes_search" (rowid, ${columns}) VALUES (new.rowid, ${values('new')});
      END`,
      `CREATE TRIGGER "nodes_search_delete" AFTER DELETE ON "nodes" BEGIN
        INSERT INTO "nodes_search" ("nodes_search", rowid, ${columns}) VALUES ('delete', old.rowid, ${values('old')});
      END`,
      `CREATE TRIGGER "nodes_search_update" AFTER UPDATE OF ${columns} ON "nodes" BEGIN
        INSERT INTO "nodes_search" ("nodes_search", rowid, ${columns}) VALUES ('delete', old.rowid, ${values('old')});
        INSERT INTO "nodes_search" (rowid, ${columns}) VALUES (new.rowid, ${values('new')});
      END`,
      `INSERT INTO "nodes_search" ("nodes_search") VALUES ('rebuild')`,
    ]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const restore = `CREATE INDEX "ix_nodes_listing" ON "nodes" ("status", "search_ranking", "downloads", "id")`;
    if (queryRunner.connection.driver.options.type === 'postgres') {
      await runStatements(queryRunner, [
        ...SEARCHED_COLUMNS.map((column) => `DROP INDEX "ix_nodes_search_${column}"`),
        `DROP INDEX "ix_nodes_catalog"`,
        restore,
      ]);
      return;
    }
    await runStatements(queryRunner, [
      ...['insert', 'delete', 'update'].map((event) => `DROP TRIGGER "nodes_search_${event}"`),
      `DROP TABLE "nodes_search"`,
      `DROP INDEX "ix_nodes_catalog"`,
      restore,
    ]);
  }
}
