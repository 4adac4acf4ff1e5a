import { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf, runStatements } from '../../../src/database/dialect';

/** One migration for both databases: the dialect supplies the few spellings that differ. */
export class Bookmarks1764100000000 implements MigrationInterface {
  name = 'Bookmarks1764100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const { timestamp } = dialectOf(queryRunner);
    await runStatements(queryRunner, [
      `CREATE TABLE "bookmarks" (
        "user_id" varchar(36) NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE,
        "node_id" varchar(100) NOT NULL REFERENCES "nodes" ("id") ON DELETE CASCADE,
        "note" varchar(280),
        "created_at" ${timestamp} NOT NULL,
        PRIMARY KEY ("user_id", "node_id")
      )`,
    ]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await runStatements(queryRunner, [`DROP TABLE "bookmarks"`]);
  }
}
