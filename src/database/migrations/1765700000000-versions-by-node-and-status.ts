import { MigrationInterface, QueryRunner } from 'typeorm';
import { runStatements } from '../dialect';

/**
 * The versions of given nodes in a given status (the compatible-version
 * choice, a node's versions by status) by an index on both columns. Without
 * it SQLite, which has no statistics here (nothing runs ANALYZE), reads such
 * a query through the admin queue's index (status first) and so walks every
 * version in that status: a page's compatible versions cost grew with the
 * catalog (6× from 1,000 to 50,000 nodes).
 */
export class VersionsByNodeAndStatus1765700000000 implements MigrationInterface {
  name = 'VersionsByNodeAndStatus1765700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await runStatements(queryRunner, [`CREATE INDEX "ix_node_versions_node_status" ON "node_versions" ("node_id", "status")`]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await runStatements(queryRunner, [`DROP INDEX "ix_node_versions_node_status"`]);
  }
}
