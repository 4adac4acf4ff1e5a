import { MigrationInterface, QueryRunner } from 'typeorm';
import { runStatements } from '../dialect';

/**
 * Which archive each change to active released, so that an archive stays
 * downloadable once released (its version deleted, or given a newer archive)
 * and never becomes public merely because a version that never passed its
 * checks was deleted (NodeArchiveAccess). On an upgraded database, a change
 * to active that no later pending, flagged or banned change followed
 * released the version's present archive (a new archive always starts with
 * a pending change); older ones are not known and stay unreleased.
 */
export class ReleasedArchives1766300000000 implements MigrationInterface {
  name = 'ReleasedArchives1766300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await runStatements(queryRunner, [
      `ALTER TABLE "version_status_changes" ADD COLUMN "released_archive_sha256" varchar(64)`,
      `UPDATE "version_status_changes" SET "released_archive_sha256" =
         (SELECT "archive_sha256" FROM "node_versions" WHERE "node_versions"."id" = "version_status_changes"."node_version_id")
       WHERE "status" = 'NodeVersionStatusActive'
         AND NOT EXISTS (
           SELECT 1 FROM "version_status_changes" AS "later"
           WHERE "later"."node_version_id" = "version_status_changes"."node_version_id"
             AND "later"."id" > "version_status_changes"."id"
             AND "later"."status" IN ('NodeVersionStatusPending', 'NodeVersionStatusFlagged', 'NodeVersionStatusBanned'))`,
      `CREATE INDEX "ix_version_status_changes_released_archive" ON "version_status_changes" ("released_archive_sha256")`,
    ]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await runStatements(queryRunner, [
      `DROP INDEX "ix_version_status_changes_released_archive"`,
      `ALTER TABLE "version_status_changes" DROP COLUMN "released_archive_sha256"`,
    ]);
  }
}
