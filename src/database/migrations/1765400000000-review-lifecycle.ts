import { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf, runStatements } from '../dialect';

/**
 * The review lifecycle (docs/api-rules.md §10): each version's latest
 * findings, the history of its status changes, and a partial index on the
 * versions whose archive still waits for its checks, which every instance
 * looks for at startup and periodically (resuming checks a stopped process
 * left unfinished).
 */
export class ReviewLifecycle1765400000000 implements MigrationInterface {
  name = 'ReviewLifecycle1765400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const { timestamp, autoIncrementPrimaryKey } = dialectOf(queryRunner);
    await runStatements(queryRunner, [
      `CREATE TABLE "version_reviews" (
        "node_version_id" varchar(36) PRIMARY KEY NOT NULL REFERENCES "node_versions" ("id") ON DELETE CASCADE,
        "archive_sha256" varchar(64) NOT NULL,
        "findings" text NOT NULL,
        "checked_at" ${timestamp} NOT NULL
      )`,
      `CREATE TABLE "version_status_changes" (
        "id" ${autoIncrementPrimaryKey},
        "node_version_id" varchar(36) NOT NULL REFERENCES "node_versions" ("id") ON DELETE CASCADE,
        "status" varchar(32) NOT NULL,
        "reason" text,
        "at" ${timestamp} NOT NULL,
        "changed_by" varchar(64) NOT NULL
      )`,
      `CREATE INDEX "ix_version_status_changes_version" ON "version_status_changes" ("node_version_id", "id")`,
      `CREATE INDEX "ix_node_versions_checks_pending" ON "node_versions" ("id") WHERE "status" = 'NodeVersionStatusPending' AND "archive_sha256" IS NOT NULL`,
      // The admin queue, oldest first within the statuses asked for.
      `CREATE INDEX "ix_node_versions_queue" ON "node_versions" ("status", "created_at", "id")`,
    ]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await runStatements(queryRunner, [
      `DROP INDEX "ix_node_versions_queue"`,
      `DROP INDEX "ix_node_versions_checks_pending"`,
      `DROP TABLE "version_status_changes"`,
      `DROP TABLE "version_reviews"`,
    ]);
  }
}
