import { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf, runStatements } from '../dialect';

/** Open credit reservations, so a create interrupted by a crash can be found and released (docs/api-rules.md §8). */
export class CreditReservations1764300000000 implements MigrationInterface {
  name = 'CreditReservations1764300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const { timestamp } = dialectOf(queryRunner);
    await runStatements(queryRunner, [
      `CREATE TABLE "credit_reservations" (
        "id" varchar(36) PRIMARY KEY NOT NULL,
        "user_id" varchar(36) NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE,
        "amount" integer NOT NULL,
        "idempotency_key" varchar(255),
        "created_at" ${timestamp} NOT NULL
      )`,
      `CREATE INDEX "ix_credit_reservations_created" ON "credit_reservations" ("created_at")`,
    ]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await runStatements(queryRunner, [`DROP TABLE "credit_reservations"`]);
  }
}
