import { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf, runStatements } from '../dialect';

/**
 * Installable nodes (docs/api-rules.md §6): a version's archive by content hash, the
 * index behind `GET /nodes?timestamp=` (every version write touched its node's
 * `updated_at`), and the keys this service signs its own URLs with, kept in
 * the database so every instance verifies what any instance signed.
 */
export class InstallableNodes1764100000000 implements MigrationInterface {
  name = 'InstallableNodes1764100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const { timestamp } = dialectOf(queryRunner);
    await runStatements(queryRunner, [
      `ALTER TABLE "node_versions" ADD COLUMN "archive_sha256" varchar(64)`,
      `CREATE INDEX "ix_nodes_updated" ON "nodes" ("updated_at")`,
      `CREATE TABLE "signing_keys" (
        "name" varchar(64) PRIMARY KEY NOT NULL,
        "secret" varchar(128) NOT NULL,
        "created_at" ${timestamp} NOT NULL
      )`,
    ]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await runStatements(queryRunner, [
      `DROP TABLE "signing_keys"`,
      `DROP INDEX "ix_nodes_updated"`,
      `ALTER TABLE "node_versions" DROP COLUMN "archive_sha256"`,
    ]);
  }
}
