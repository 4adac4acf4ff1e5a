import { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf, runStatements } from '../dialect';

/**
 * Statuses the upstream reports for a task this service has not stored yet:
 * a fast upstream can call back between its create reply and the commit that
 * stores the task. They are applied, in the order received, once it is stored.
 */
export class EarlyUpstreamStatuses1765800000000 implements MigrationInterface {
  name = 'EarlyUpstreamStatuses1765800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const { timestamp, autoIncrementPrimaryKey } = dialectOf(queryRunner);
    await runStatements(queryRunner, [
      `CREATE TABLE "early_upstream_statuses" (
        "id" ${autoIncrementPrimaryKey},
        "task_id" varchar(128) NOT NULL,
        "status" text NOT NULL,
        "received_at" ${timestamp} NOT NULL
      )`,
      `CREATE INDEX "ix_early_upstream_statuses_task" ON "early_upstream_statuses" ("task_id", "id")`,
      `CREATE INDEX "ix_early_upstream_statuses_received" ON "early_upstream_statuses" ("received_at")`,
    ]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await runStatements(queryRunner, [`DROP TABLE "early_upstream_statuses"`]);
  }
}
