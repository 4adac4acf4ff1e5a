import { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf, runStatements } from '../dialect';

/**
 * Kept video results (docs/api-rules.md §4.4): one row per file to fetch. The
 * task's `state` column is unconstrained varchar(16), so `canceled` needs no change.
 */
export class VideoResults1765600000000 implements MigrationInterface {
  name = 'VideoResults1765600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const { timestamp } = dialectOf(queryRunner);
    await runStatements(queryRunner, [
      `CREATE TABLE "video_results" (
        "id" varchar(36) PRIMARY KEY NOT NULL,
        "task_id" varchar(128) NOT NULL REFERENCES "video_tasks" ("task_id") ON DELETE CASCADE,
        "user_id" varchar(36) NOT NULL,
        "creation_id" varchar(128) NOT NULL,
        "kind" varchar(8) NOT NULL,
        "source_url" varchar(2048) NOT NULL,
        "state" varchar(8) NOT NULL,
        "attempts" integer NOT NULL DEFAULT 0,
        "next_attempt_at" ${timestamp} NOT NULL,
        "links_expire_at" ${timestamp} NOT NULL,
        "sha256" varchar(64),
        "content_type" varchar(64),
        "stored_at" ${timestamp},
        "last_error" varchar(512),
        "created_at" ${timestamp} NOT NULL
      )`,
      // One job per file of a creation, however often the success is reported.
      `CREATE UNIQUE INDEX "uq_video_results_file" ON "video_results" ("task_id", "creation_id", "kind")`,
      `CREATE INDEX "ix_video_results_due" ON "video_results" ("state", "next_attempt_at")`,
      `CREATE INDEX "ix_video_results_sha256" ON "video_results" ("sha256")`,
      `CREATE INDEX "ix_video_results_stored_at" ON "video_results" ("state", "stored_at")`,
    ]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await runStatements(queryRunner, [`DROP TABLE "video_results"`]);
  }
}
