import { MigrationInterface, QueryRunner } from 'typeorm';
import { runStatements } from '../dialect';

/**
 * A task created under an Idempotency-Key names that key's claim, in the same
 * transaction that stores and charges it: a retry then finds the task even
 * when recording the key's reply failed afterwards (docs/decisions.md).
 */
export class IdempotentTaskLink1764400000000 implements MigrationInterface {
  name = 'IdempotentTaskLink1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await runStatements(queryRunner, [
      `ALTER TABLE "video_tasks" ADD COLUMN "idempotency_key_id" varchar(36)`,
      // One task per claim; both databases allow any number of NULLs (tasks created without a key).
      `CREATE UNIQUE INDEX "uq_video_tasks_idempotency_key" ON "video_tasks" ("idempotency_key_id")`,
    ]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await runStatements(queryRunner, [
      `DROP INDEX "uq_video_tasks_idempotency_key"`,
      `ALTER TABLE "video_tasks" DROP COLUMN "idempotency_key_id"`,
    ]);
  }
}
