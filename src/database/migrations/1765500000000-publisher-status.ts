import { MigrationInterface, QueryRunner } from 'typeorm';

/** A publisher's status (docs/api-rules.md §10): existing publishers are active. */
export class PublisherStatus1765500000000 implements MigrationInterface {
  name = 'PublisherStatus1765500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "publishers" ADD COLUMN "status" varchar(32) NOT NULL DEFAULT 'PublisherStatusActive'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "publishers" DROP COLUMN "status"`);
  }
}
