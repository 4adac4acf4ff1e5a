import { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf, runStatements } from '../dialect';

export class InitialSchema1763800000000 implements MigrationInterface {
  name = 'InitialSchema1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const { timestamp, autoIncrementPrimaryKey, false: FALSE } = dialectOf(queryRunner);
    const statements = [
      `CREATE TABLE "users" (
        "id" varchar(36) PRIMARY KEY NOT NULL,
        "email" varchar(320) NOT NULL,
        "name" varchar(256) NOT NULL,
        "is_admin" boolean NOT NULL DEFAULT ${FALSE},
        "credits" integer NOT NULL DEFAULT 0 CHECK ("credits" >= 0),
        "created_at" ${timestamp} NOT NULL
      )`,
      `CREATE UNIQUE INDEX "uq_users_email" ON "users" ("email")`,

      `CREATE TABLE "access_tokens" (
        "id" varchar(36) PRIMARY KEY NOT NULL,
        "user_id" varchar(36) NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE,
        "name" varchar(128),
        "token_hash" varchar(64) NOT NULL,
        "created_at" ${timestamp} NOT NULL,
        "revoked_at" ${timestamp}
      )`,
      `CREATE UNIQUE INDEX "uq_access_tokens_hash" ON "access_tokens" ("token_hash")`,
      `CREATE INDEX "ix_access_tokens_user" ON "access_tokens" ("user_id")`,

      `CREATE TABLE "credit_ledger" (
        "id" ${autoIncrementPrimaryKey},
        "user_id" varchar(36) NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE,
        "kind" varchar(16) NOT NULL,
        "amount" integer NOT NULL,
        "balance_after" integer NOT NULL,
        "task_id" varchar(64),
        "created_at" ${timestamp} NOT NULL
      )`,
      `CREATE INDEX "ix_credit_ledger_user" ON "credit_ledger" ("user_id", "id")`,

      `CREATE TABLE "publishers" (
        "id" varchar(64) PRIMARY KEY NOT NULL,
        "name" varchar(256) NOT NULL,
        "description" text,
        "website" varchar(2048),
        "support" varchar(2048),
        "source_code_repo" varchar(2048),
        "logo" varchar(2048),
        "created_at" ${timestamp} NOT NULL
      )`,

      `CREATE TABLE "publisher_members" (
        "id" varchar(36) PRIMARY KEY NOT NULL,
        "publisher_id" varchar(64) NOT NULL REFERENCES "publishers" ("id") ON DELETE CASCADE,
        "user_id" varchar(36) NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE,
        "role" varchar(16) NOT NULL,
        "created_at" ${timestamp} NOT NULL
      )`,
      `CREATE UNIQUE INDEX "uq_publisher_members" ON "publisher_members" ("publisher_id", "user_id")`,
      `CREATE INDEX "ix_publisher_members_user" ON "publisher_members" ("user_id")`,

      `CREATE TABLE "nodes" (
        "id" varchar(100) PRIMARY KEY NOT NULL,
        "normalized_id" varchar(100) NOT NULL,
        "publisher_id" varchar(64) NOT NULL REFERENCES "publishers" ("id"),
        "name" varchar(256) NOT NULL,
        "description" text,
        "author" varchar(256),
        "category" varchar(256),
        "license" varchar(2048),
        "icon" varchar(2048),
        "banner_url" varchar(2048),
        "repository" varchar(2048),
        "tags" text NOT NULL,
        "tags_admin" text NOT NULL,
        "supported_os" text NOT NULL,
        "supported_accelerators" text NOT NULL,
        "supported_app_version" varchar(256),
        "supported_app_frontend_version" varchar(256),
        "preempted_app_node_names" text NOT NULL,
        "translations" text,
        "status" varchar(32) NOT NULL,
        "status_detail" text,
        "search_ranking" integer NOT NULL DEFAULT 0,
        "downloads" integer NOT NULL DEFAULT 0,
        "github_stars" integer NOT NULL DEFAULT 0,
        "rating" double precision NOT NULL DEFAULT 0,
        "latest_version_id" varchar(36),
        "created_at" ${timestamp} NOT NULL,
        "updated_at" ${timestamp} NOT NULL
      )`,
      `CREATE UNIQUE INDEX "uq_nodes_normalized_id" ON "nodes" ("normalized_id")`,
      `CREATE INDEX "ix_nodes_publisher" ON "nodes" ("publisher_id")`,
      `CREATE INDEX "ix_nodes_listing" ON "nodes" ("status", "search_ranking", "downloads", "id")`,

      `CREATE TABLE "node_versions" (
        "id" varchar(36) PRIMARY KEY NOT NULL,
        "node_id" varchar(100) NOT NULL REFERENCES "nodes" ("id") ON DELETE CASCADE,
        "version" varchar(256) NOT NULL,
        "changelog" text,
        "dependencies" text NOT NULL,
        "deprecated" boolean NOT NULL DEFAULT ${FALSE},
        "download_url" varchar(2048),
        "status" varchar(32) NOT NULL,
        "status_reason" text,
        "app_node_extract_status" varchar(64),
        "supported_os" text NOT NULL,
        "supported_accelerators" text NOT NULL,
        "supported_app_version" varchar(256),
        "supported_app_frontend_version" varchar(256),
        "tags" text NOT NULL,
        "tags_admin" text NOT NULL,
        "created_at" ${timestamp} NOT NULL
      )`,
      `CREATE UNIQUE INDEX "uq_node_versions_node_version" ON "node_versions" ("node_id", "version")`,

      `CREATE TABLE "reviews" (
        "id" varchar(36) PRIMARY KEY NOT NULL,
        "node_id" varchar(100) NOT NULL REFERENCES "nodes" ("id") ON DELETE CASCADE,
        "user_id" varchar(36) NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE,
        "star" integer NOT NULL CHECK ("star" BETWEEN 1 AND 5),
        "created_at" ${timestamp} NOT NULL,
        "updated_at" ${timestamp} NOT NULL
      )`,
      `CREATE UNIQUE INDEX "uq_reviews_node_user" ON "reviews" ("node_id", "user_id")`,
    ];
    await runStatements(queryRunner, statements);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const tables = ['reviews', 'node_versions', 'nodes', 'publisher_members', 'publishers', 'credit_ledger', 'access_tokens', 'users'];
    await runStatements(queryRunner, tables.map((table) => `DROP TABLE "${table}"`));
  }
}
