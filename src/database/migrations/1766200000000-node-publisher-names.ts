import { MigrationInterface, QueryRunner } from 'typeorm';
import { runStatements } from '../dialect';

/**
 * Each node keeps a copy of its publisher's name, which `sort=publisher_name`
 * orders by: the nodes module's query then reads its own table only (it
 * ordered by a subquery on `publishers` that the publishers module wrote for
 * it). The copy follows a rename in the rename's own transaction
 * (PublishersService.whenRenamed).
 */
export class NodePublisherNames1766200000000 implements MigrationInterface {
  name = 'NodePublisherNames1766200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const statements = [
      // SQLite adds a NOT NULL column only with a default; the rows then get their names at once.
      `ALTER TABLE "nodes" ADD COLUMN "publisher_name" varchar(256) NOT NULL DEFAULT ''`,
      `UPDATE "nodes" SET "publisher_name" = (SELECT "name" FROM "publishers" WHERE "publishers"."id" = "nodes"."publisher_id")`,
    ];
    // PostgreSQL can drop the default, so that an insert leaving the name out fails rather than sort first.
    if (queryRunner.connection.driver.options.type === 'postgres') statements.push(`ALTER TABLE "nodes" ALTER COLUMN "publisher_name" DROP DEFAULT`);
    await runStatements(queryRunner, statements);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await runStatements(queryRunner, [`ALTER TABLE "nodes" DROP COLUMN "publisher_name"`]);
  }
}
