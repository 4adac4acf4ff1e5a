import { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf, runStatements } from '../dialect';

export class VideoTasks1763900000000 implements MigrationInterface {
  name = 'VideoTasks1763900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const { timestamp } = dialectOf(queryRunner);
    const statements = [
      `CREATE TABLE "video_tasks" (
        "task_id" varchar(128) PRIMARY KEY NOT NULL,
        "user_id" varchar(36) NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE,
        "model" varchar(32) NOT NULL,
        "state" varchar(16) NOT NULL,
        "credits" integer NOT NULL,
        "request" text NOT NULL,
        "reply" text NOT NULL,
        "callback_url" varchar(2048),
        "created_at" ${timestamp} NOT NULL,
        "updated_at" ${timestamp} NOT NULL
      )`,
      `CREATE INDEX "ix_video_tasks_user_created" ON "video_tasks" ("user_id", "created_at")`,
      `CREATE TABLE "idempotency_keys" (
        "id" varchar(36) PRIMARY KEY NOT NULL,
        "user_id" varchar(36) NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE,
        "idempotency_key" varchar(255) NOT NULL,
        "request_hash" varchar(64) NOT NULL,
        "state" varchar(16) NOT NULL,
        "reply" text,
        "created_at" ${timestamp} NOT NULL
      )`,
      `CREATE UNIQUE INDEX "uq_idempotency_keys_user_key" ON "idempotency_keys" ("user_id", "idempotency_key")`,
    ];
    await runStatements(queryRunner, statements);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await runStatements(queryRunner, [`DROP TABLE "idempotency_keys"`, `DROP TABLE "video_tasks"`]);
  }
}
