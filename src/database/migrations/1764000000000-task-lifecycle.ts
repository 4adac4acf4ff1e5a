import { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf, runStatements } from '../dialect';

export class TaskLifecycle1764000000000 implements MigrationInterface {
  name = 'TaskLifecycle1764000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const { timestamp, autoIncrementPrimaryKey } = dialectOf(queryRunner);
    const statements = [
      `ALTER TABLE "users" ADD COLUMN "webhook_secret" varchar(128)`,
      `ALTER TABLE "video_tasks" ADD COLUMN "err_code" varchar(128)`,
      `ALTER TABLE "video_tasks" ADD COLUMN "creations" text`,
      `ALTER TABLE "video_tasks" ADD COLUMN "refunded_at" ${timestamp}`,
      `CREATE TABLE "callback_deliveries" (
        "id" ${autoIncrementPrimaryKey},
        "task_id" varchar(128) NOT NULL REFERENCES "video_tasks" ("task_id") ON DELETE CASCADE,
        "user_id" varchar(36) NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE,
        "url" varchar(2048) NOT NULL,
        "body" text NOT NULL,
        "attempts" integer NOT NULL DEFAULT 0,
        "next_attempt_at" ${timestamp} NOT NULL,
        "delivered_at" ${timestamp},
        "abandoned_at" ${timestamp},
        "last_error" varchar(512),
        "created_at" ${timestamp} NOT NULL
      )`,
      `CREATE INDEX "ix_callback_deliveries_pending" ON "callback_deliveries" ("delivered_at", "abandoned_at", "next_attempt_at")`,
      `CREATE INDEX "ix_callback_deliveries_task" ON "callback_deliveries" ("task_id", "id")`,
      `CREATE TABLE "upstream_callback_nonces" (
        "nonce" varchar(128) PRIMARY KEY NOT NULL,
        "received_at" ${timestamp} NOT NULL
      )`,
      `CREATE INDEX "ix_upstream_callback_nonces_received" ON "upstream_callback_nonces" ("received_at")`,
    ];
    if (queryRunner.connection.driver.options.type === 'postgres') {
      // Ledger entries name tasks by the upstream's id, which may be up to 128 characters (SQLite does not enforce lengths).
      statements.push(`ALTER TABLE "credit_ledger" ALTER COLUMN "task_id" TYPE varchar(128)`);
    }
    await runStatements(queryRunner, statements);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await runStatements(queryRunner, [
      `DROP TABLE "upstream_callback_nonces"`,
      `DROP TABLE "callback_deliveries"`,
      ...['refunded_at', 'creations', 'err_code'].map((column) => `ALTER TABLE "video_tasks" DROP COLUMN "${column}"`),
      `ALTER TABLE "users" DROP COLUMN "webhook_secret"`,
    ]);
  }
}
