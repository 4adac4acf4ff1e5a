import { MigrationInterface, QueryRunner } from 'typeorm';
import { runStatements } from '../dialect';

/** What a search matches (docs/api-rules.md §3): a change to any of these, or to the status, can change a search's total. */
const SEARCHED = ['id', 'name', 'description', 'author', 'status'];

/**
 * A generation of what searches can match, in the catalog-count row:
 * triggers raise it, in the same transaction, whenever a node is inserted
 * or deleted, or its id, name, description, author or status changes (not
 * for downloads, ratings or other fields). A search's exact total, counted
 * once, stays valid for as long as the generation is the one it was counted
 * under, so repeated searches need not recount their matches (see
 * NodesRepository.keptSearch). Data in the shared database, so every
 * instance sees a change at its next search.
 */
export class SearchGeneration1764700000000 implements MigrationInterface {
  name = 'SearchGeneration1764700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const column = `ALTER TABLE "catalog_counts" ADD COLUMN "search_generation" bigint NOT NULL DEFAULT 0`;
    const bump = `UPDATE "catalog_counts" SET "search_generation" = "search_generation" + 1`;
    if (queryRunner.connection.driver.options.type === 'postgres') {
      const changed = SEARCHED.map((name) => `OLD."${name}" IS DISTINCT FROM NEW."${name}"`).join(' OR ');
      await runStatements(queryRunner, [
        column,
        `CREATE FUNCTION "search_generation_bump"() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN
            ${bump};
            RETURN NULL;
          END $$`,
        // Once per statement for inserts and deletes (a bulk load raises it once), per changed row for updates.
        `CREATE TRIGGER "search_generation_rows" AFTER INSERT OR DELETE OR TRUNCATE ON "nodes"
          FOR EACH STATEMENT EXECUTE FUNCTION "search_generation_bump"()`,
        `CREATE TRIGGER "search_generation_update" AFTER UPDATE OF ${SEARCHED.map((name) => `"${name}"`).join(', ')} ON "nodes"
          FOR EACH ROW WHEN (${changed}) EXECUTE FUNCTION "search_generation_bump"()`,
      ]);
      return;
    }
    const changed = SEARCHED.map((name) => `old."${name}" IS NOT new."${name}"`).join(' OR ');
    await runStatements(queryRunner, [
      column,
      `CREATE TRIGGER "search_generation_insert" AFTER INSERT ON "nodes" BEGIN ${bump}; END`,
      `CREATE TRIGGER "search_generation_delete" AFTER DELETE ON "nodes" BEGIN ${bump}; END`,
      `CREATE TRIGGER "search_generation_update" AFTER UPDATE OF ${SEARCHED.map((name) => `"${name}"`).join(', ')} ON "nodes"
        WHEN ${changed} BEGIN ${bump}; END`,
    ]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.driver.options.type === 'postgres') {
      await runStatements(queryRunner, [
        `DROP TRIGGER "search_generation_rows" ON "nodes"`,
        `DROP TRIGGER "search_generation_update" ON "nodes"`,
        `DROP FUNCTION "search_generation_bump"()`,
        `ALTER TABLE "catalog_counts" DROP COLUMN "search_generation"`,
      ]);
      return;
    }
    await runStatements(queryRunner, [
      ...['insert', 'delete', 'update'].map((event) => `DROP TRIGGER "search_generation_${event}"`),
      `ALTER TABLE "catalog_counts" DROP COLUMN "search_generation"`,
    ]);
  }
}
