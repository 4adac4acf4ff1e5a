import { MigrationInterface, QueryRunner } from 'typeorm';
import { runStatements } from '../dialect';

const LISTED = `'NodeStatusActive'`;

/**
 * The size of the listed catalog (active nodes), kept in one row by triggers
 * in the same transactions that insert, delete or change the status of
 * nodes, so a listing reads its `total` instead of counting the catalog
 * (docs/api-rules.md §7), exactly, on every instance. Download counts and edits that
 * leave the status alone never touch the row. On PostgreSQL, inserts and
 * deletes are counted once per statement (a bulk load updates the row once
 * per statement, not once per row); a status change once per row that
 * changes it.
 */
export class CatalogCount1764500000000 implements MigrationInterface {
  name = 'CatalogCount1764500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const table = `CREATE TABLE "catalog_counts" ("id" integer PRIMARY KEY CHECK ("id" = 1), "listed" integer NOT NULL)`;
    const fill = `INSERT INTO "catalog_counts" ("id", "listed") SELECT 1, COUNT(*) FROM "nodes" WHERE "status" = ${LISTED}`;
    if (queryRunner.connection.driver.options.type === 'postgres') {
      const listedIn = (rows: string) => `(SELECT COUNT(*) FROM ${rows} WHERE "status" = ${LISTED})`;
      await runStatements(queryRunner, [
        // No node write may commit between the count below and the triggers taking over.
        `LOCK TABLE "nodes" IN SHARE ROW EXCLUSIVE MODE`,
        table,
        `CREATE FUNCTION "catalog_count_rows"() RETURNS trigger LANGUAGE plpgsql AS $$
          DECLARE delta bigint;
          BEGIN
            IF TG_OP = 'INSERT' THEN delta := ${listedIn('"inserted_nodes"')};
            ELSE delta := -${listedIn('"deleted_nodes"')};
            END IF;
            IF delta <> 0 THEN UPDATE "catalog_counts" SET "listed" = "listed" + delta; END IF;
            RETURN NULL;
          END $$`,
        `CREATE FUNCTION "catalog_count_status"() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN
            UPDATE "catalog_counts" SET "listed" = "listed" + CASE WHEN NEW."status" = ${LISTED} THEN 1 ELSE -1 END;
            RETURN NULL;
          END $$`,
        `CREATE FUNCTION "catalog_count_truncate"() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN
            UPDATE "catalog_counts" SET "listed" = 0;
            RETURN NULL;
          END $$`,
        `CREATE TRIGGER "catalog_count_insert" AFTER INSERT ON "nodes" REFERENCING NEW TABLE AS "inserted_nodes"
          FOR EACH STATEMENT EXECUTE FUNCTION "catalog_count_rows"()`,
        `CREATE TRIGGER "catalog_count_delete" AFTER DELETE ON "nodes" REFERENCING OLD TABLE AS "deleted_nodes"
          FOR EACH STATEMENT EXECUTE FUNCTION "catalog_count_rows"()`,
        `CREATE TRIGGER "catalog_count_update" AFTER UPDATE OF "status" ON "nodes" FOR EACH ROW
          WHEN ((OLD."status" = ${LISTED}) IS DISTINCT FROM (NEW."status" = ${LISTED})) EXECUTE FUNCTION "catalog_count_status"()`,
        `CREATE TRIGGER "catalog_count_truncate" AFTER TRUNCATE ON "nodes" FOR EACH STATEMENT EXECUTE FUNCTION "catalog_count_truncate"()`,
        fill,
      ]);
      return;
    }
    // SQLite: one writer at a time, row triggers only (a DELETE of every row still fires them once triggers exist).
    await runStatements(queryRunner, [
      table,
      `CREATE TRIGGER "catalog_count_insert" AFTER INSERT ON "nodes" WHEN new."status" = ${LISTED} BEGIN
        UPDATE "catalog_counts" SET "listed" = "listed" + 1;
      END`,
      `CREATE TRIGGER "catalog_count_delete" AFTER DELETE ON "nodes" WHEN old."status" = ${LISTED} BEGIN
        UPDATE "catalog_counts" SET "listed" = "listed" - 1;
      END`,
      `CREATE TRIGGER "catalog_count_update" AFTER UPDATE OF "status" ON "nodes"
        WHEN (old."status" = ${LISTED}) <> (new."status" = ${LISTED}) BEGIN
        UPDATE "catalog_counts" SET "listed" = "listed" + CASE WHEN new."status" = ${LISTED} THEN 1 ELSE -1 END;
      END`,
      fill,
    ]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const triggers = ['insert', 'delete', 'update'];
    if (queryRunner.connection.driver.options.type === 'postgres') {
      await runStatements(queryRunner, [
        ...[...triggers, 'truncate'].map((event) => `DROP TRIGGER "catalog_count_${event}" ON "nodes"`),
        ...['rows', 'status', 'truncate'].map((name) => `DROP FUNCTION "catalog_count_${name}"()`),
        `DROP TABLE "catalog_counts"`,
      ]);
      return;
    }
    await runStatements(queryRunner, [...triggers.map((event) => `DROP TRIGGER "catalog_count_${event}"`), `DROP TABLE "catalog_counts"`]);
  }
}
