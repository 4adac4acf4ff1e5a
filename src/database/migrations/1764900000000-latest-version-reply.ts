import { MigrationInterface, QueryRunner } from 'typeorm';
import { runStatements } from '../dialect';

/**
 * On SQLite, a node's row also carries its latest version's reply text
 * (`nodes.latest_version_reply`, a copy of that version's `reply_json`), so a
 * catalog page reads one row per node instead of joining each to its latest
 * version. SQLite's rows are found through the text primary key's own index
 * and then the table, two descents per table, and the version's were most of
 * a page's reads: at 50,000 nodes a page of 1,000 read its rows in about 6 ms
 * with the join and 2.5 ms without. Without the join the catalog walk can
 * also read whole rows (see catalogPageSql in nodes.repository.ts): SQLite
 * reads a row only once the walk is past the offset.
 *
 * Triggers keep the copy in the statement that changes either side: the node
 * pointing at another version, and the version's own text changing. A node
 * is inserted before any version of it exists (a version references its
 * node), so an insert has no copy to take: the version's own text, written
 * by the reply-text trigger, brings it once the node points at it. Versions
 * are never deleted (their status changes), so a node never points at a
 * version that is gone.
 *
 * PostgreSQL keeps the join (docs/decisions.md says why at length): there an
 * edit of a latest version would also write its node's row, taking the
 * node's lock after the version's where a write that may move the latest
 * version takes them the other way round, and updating every index of the
 * node when the update is not HOT (what the version-change-time migration
 * took out of PUT version).
 */
export class LatestVersionReply1764900000000 implements MigrationInterface {
  name = 'LatestVersionReply1764900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.driver.options.type === 'postgres') return;
    const copyOfLatest = `(SELECT "reply_json" FROM "node_versions" WHERE "id" = "nodes"."latest_version_id")`;
    const write = `UPDATE "nodes" SET "latest_version_reply" = ${copyOfLatest} WHERE rowid = new.rowid;`;
    await runStatements(queryRunner, [
      `ALTER TABLE "nodes" ADD COLUMN "latest_version_reply" text`,
      `CREATE TRIGGER "nodes_latest_version_reply_update" AFTER UPDATE OF "latest_version_id" ON "nodes" BEGIN ${write} END`,
      // A version's reply_json is itself written by a trigger (an UPDATE after the row's own statement), which fires this.
      `CREATE TRIGGER "node_versions_latest_version_reply" AFTER UPDATE OF "reply_json" ON "node_versions" BEGIN
        UPDATE "nodes" SET "latest_version_reply" = new."reply_json" WHERE "id" = new."node_id" AND "latest_version_id" = new."id";
      END`,
      `UPDATE "nodes" SET "latest_version_reply" = ${copyOfLatest}`,
    ]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.driver.options.type === 'postgres') return;
    await runStatements(queryRunner, [
      `DROP TRIGGER "node_versions_latest_version_reply"`,
      `DROP TRIGGER "nodes_latest_version_reply_update"`,
      `ALTER TABLE "nodes" DROP COLUMN "latest_version_reply"`,
    ]);
  }
}
