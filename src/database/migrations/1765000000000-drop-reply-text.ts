import { MigrationInterface, QueryRunner } from 'typeorm';
import { runStatements } from '../dialect';
import { LatestVersionReply1764900000000 } from './1764900000000-latest-version-reply';
import { ReplyText1764800000000 } from './1764800000000-reply-text';
import { SearchGeneration1764700000000 } from './1764700000000-search-generation';

/**
 * Replies are built only by their mappers in TypeScript (docs/decisions.md,
 * "One way to the data"): the reply text the database kept in rows
 * (`nodes.reply_head`, `node_versions.reply_json`, on SQLite also
 * `nodes.latest_version_reply`), the triggers that wrote it, and the search
 * generation that only served the per-instance search memo go. Every row and
 * every other column stays. Hot reads are cached as serialized replies
 * instead (PublicReadCache).
 */
export class DropReplyText1765000000000 implements MigrationInterface {
  name = 'DropReplyText1765000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.driver.options.type === 'postgres') {
      await runStatements(queryRunner, [
        ...['nodes_reply_head', 'node_versions_reply_json'].flatMap((trigger) => {
          const table = trigger.startsWith('nodes_') ? 'nodes' : 'node_versions';
          return [`DROP TRIGGER "${trigger}" ON "${table}"`, `DROP FUNCTION "${trigger}"()`, `ALTER TABLE "${table}" RESET (toast_tuple_target)`];
        }),
        `ALTER TABLE "nodes" DROP COLUMN "reply_head"`,
        `ALTER TABLE "node_versions" DROP COLUMN "reply_json"`,
        `DROP TRIGGER "search_generation_rows" ON "nodes"`,
        `DROP TRIGGER "search_generation_update" ON "nodes"`,
        `DROP FUNCTION "search_generation_bump"()`,
        `ALTER TABLE "catalog_counts" DROP COLUMN "search_generation"`,
      ]);
      return;
    }
    // SQLite drops a column only once no trigger names it.
    await runStatements(queryRunner, [
      `DROP TRIGGER "node_versions_latest_version_reply"`,
      `DROP TRIGGER "nodes_latest_version_reply_update"`,
      ...['nodes_reply_head', 'node_versions_reply_json'].flatMap((trigger) => [`DROP TRIGGER "${trigger}_insert"`, `DROP TRIGGER "${trigger}_update"`]),
      ...['insert', 'delete', 'update'].map((event) => `DROP TRIGGER "search_generation_${event}"`),
      `ALTER TABLE "nodes" DROP COLUMN "latest_version_reply"`,
      `ALTER TABLE "nodes" DROP COLUMN "reply_head"`,
      `ALTER TABLE "node_versions" DROP COLUMN "reply_json"`,
      `ALTER TABLE "catalog_counts" DROP COLUMN "search_generation"`,
    ]);
  }

  /** Puts back what up() removed, as the migrations that made it made it (texts and copies rebuilt from the rows). */
  async down(queryRunner: QueryRunner): Promise<void> {
    await new SearchGeneration1764700000000().up(queryRunner);
    await new ReplyText1764800000000().up(queryRunner);
    await new LatestVersionReply1764900000000().up(queryRunner);
  }
}
