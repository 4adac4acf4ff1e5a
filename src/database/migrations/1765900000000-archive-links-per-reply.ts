import { MigrationInterface, QueryRunner } from 'typeorm';
import { runStatements } from '../dialect';

/**
 * A version with an archive no longer keeps a link to it: each reply makes
 * it from PUBLIC_BASE_URL or the request's origin (ArchivesService.linksFor).
 * A kept link held the host the uploader's request named (its Host header,
 * which a client chooses) for every later reader, and outlived a change of
 * PUBLIC_BASE_URL. `download_url` stays for a version without an archive
 * whose link an admin set. Nothing is lost: the link was made from
 * `archive_sha256`, which stays.
 */
export class ArchiveLinksPerReply1765900000000 implements MigrationInterface {
  name = 'ArchiveLinksPerReply1765900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await runStatements(queryRunner, [`UPDATE "node_versions" SET "download_url" = NULL WHERE "archive_sha256" IS NOT NULL`]);
  }

  /** The links come back on the origin the service knew last: none, so they are made on localhost. */
  async down(queryRunner: QueryRunner): Promise<void> {
    await runStatements(queryRunner, [
      `UPDATE "node_versions" SET "download_url" = 'http://localhost:3000/archives/' || "archive_sha256" || '.zip' WHERE "archive_sha256" IS NOT NULL`,
    ]);
  }
}
