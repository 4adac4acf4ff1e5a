import { MigrationInterface, QueryRunner } from 'typeorm';

/** A node's home page URL (optional; absent from replies when NULL). */
export class NodeHomepage1765100000000 implements MigrationInterface {
  name = 'NodeHomepage1765100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "nodes" ADD COLUMN "homepage" varchar(2048)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "nodes" DROP COLUMN "homepage"`);
  }
}
