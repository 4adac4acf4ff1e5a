import { MigrationInterface, QueryRunner } from 'typeorm';
import { runStatements } from '../dialect';

/**
 * A kept result's upstream link without a length limit: pre-signed CDN links
 * (a security token in the query) run past the 2,048 characters the column
 * held, and on PostgreSQL the insert failed with the whole success it was
 * part of, so the task stayed running for good. SQLite does not enforce a
 * varchar's length: nothing to do there.
 */
export class ResultSourceUrls1766500000000 implements MigrationInterface {
  name = 'ResultSourceUrls1766500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.driver.options.type !== 'postgres') return;
    await runStatements(queryRunner, [`ALTER TABLE "video_results" ALTER COLUMN "source_url" TYPE text`]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.driver.options.type !== 'postgres') return;
    // A link longer than the old limit is cut (its job could not be retried with it anyway once down).
    await runStatements(queryRunner, [`ALTER TABLE "video_results" ALTER COLUMN "source_url" TYPE varchar(2048) USING left("source_url", 2048)`]);
  }
}
