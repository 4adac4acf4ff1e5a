import { MigrationInterface, QueryRunner } from 'typeorm';
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

  /** The three migrations that made it, undone newest first (each drops its triggers before the columns they name). */
  async up(queryRunner: QueryRunner): Promise<void> {
    await new LatestVersionReply1764900000000().down(queryRunner);
    await new ReplyText1764800000000().down(queryRunner);
    await new SearchGeneration1764700000000().down(queryRunner);
  }

  /** Puts back what up() removed, as the migrations that made it made it (texts and copies rebuilt from the rows). */
  async down(queryRunner: QueryRunner): Promise<void> {
    await new SearchGeneration1764700000000().up(queryRunner);
    await new ReplyText1764800000000().up(queryRunner);
    await new LatestVersionReply1764900000000().up(queryRunner);
  }
}
