import { MigrationInterface, QueryRunner } from 'typeorm';
import { runStatements } from '../dialect';

/**
 * The versions holding an archive, by an index on its sha256: every
 * download asks who may have it (NodeArchiveAccess), and a table scan there
 * would cost each install more as the catalog grows.
 */
export class VersionsByArchive1766000000000 implements MigrationInterface {
  name = 'VersionsByArchive1766000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await runStatements(queryRunner, [`CREATE INDEX "ix_node_versions_archive_sha256" ON "node_versions" ("archive_sha256")`]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await runStatements(queryRunner, [`DROP INDEX "ix_node_versions_archive_sha256"`]);
  }
}
