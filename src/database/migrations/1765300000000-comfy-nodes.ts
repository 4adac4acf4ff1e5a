import { MigrationInterface, QueryRunner } from 'typeorm';
import { runStatements } from '../dialect';

/**
 * Node classes ("comfy nodes", docs/api-rules.md §9.3): the classes each
 * version provides, keyed by version and name, with an index on the name for
 * `GET /comfy-nodes/{name}/node`; why a version's extraction failed; and a
 * partial index on the versions still waiting for extraction, which every
 * instance looks for at startup and periodically (resuming extractions a
 * stopped process left unfinished).
 */
export class ComfyNodes1765300000000 implements MigrationInterface {
  name = 'ComfyNodes1765300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Names sort byte by byte on both databases, as SQLite's BINARY does (a PostgreSQL database may default to a locale's order).
    const byteOrder = queryRunner.connection.driver.options.type === 'postgres' ? ' COLLATE "C"' : '';
    await runStatements(queryRunner, [
      `CREATE TABLE "comfy_nodes" (
        "node_version_id" varchar(36) NOT NULL REFERENCES "node_versions" ("id") ON DELETE CASCADE,
        "name" varchar(256)${byteOrder} NOT NULL,
        "category" text,
        "description" text,
        "function" text,
        "input_types" text,
        "return_types" text,
        "return_names" text,
        "output_is_list" text,
        "deprecated" boolean,
        "experimental" boolean,
        PRIMARY KEY ("node_version_id", "name")
      )`,
      `CREATE INDEX "ix_comfy_nodes_name" ON "comfy_nodes" ("name")`,
      `CREATE TABLE "comfy_node_extraction_failures" (
        "node_version_id" varchar(36) PRIMARY KEY NOT NULL REFERENCES "node_versions" ("id") ON DELETE CASCADE,
        "reason" text NOT NULL
      )`,
      `CREATE INDEX "ix_node_versions_extract_pending" ON "node_versions" ("id") WHERE "app_node_extract_status" = 'pending'`,
    ]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await runStatements(queryRunner, [
      `DROP INDEX "ix_node_versions_extract_pending"`,
      `DROP TABLE "comfy_node_extraction_failures"`,
      `DROP TABLE "comfy_nodes"`,
    ]);
  }
}
