import { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf, runStatements } from '../dialect';

/**
 * When the service next asks the upstream about a running task
 * (TaskStatusPoller): without it a task nobody polled and whose callback
 * never came (no PUBLIC_BASE_URL, a lost delivery) never learned its end,
 * so its client callback, refund or kept results never happened. Running
 * tasks of an upgraded database are due at once; ended ones are never.
 */
export class TaskStatusChecks1766100000000 implements MigrationInterface {
  name = 'TaskStatusChecks1766100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const { timestamp } = dialectOf(queryRunner);
    await runStatements(queryRunner, [
      `ALTER TABLE "video_tasks" ADD COLUMN "next_check_at" ${timestamp}`,
      `UPDATE "video_tasks" SET "next_check_at" = "updated_at" WHERE "state" NOT IN ('success', 'failed', 'canceled')`,
      `CREATE INDEX "ix_video_tasks_next_check_at" ON "video_tasks" ("next_check_at")`,
    ]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await runStatements(queryRunner, [`DROP INDEX "ix_video_tasks_next_check_at"`, `ALTER TABLE "video_tasks" DROP COLUMN "next_check_at"`]);
  }
}
