import { QueryRunner } from 'typeorm';

/**
 * The few SQL spellings that differ between SQLite and PostgreSQL. Migrations
 * are written once against these tokens, so both databases always get the same
 * schema from the same file.
 */
export interface SqlDialect {
  timestamp: string;
  autoIncrementPrimaryKey: string;
  false: string;
}

const SQLITE: SqlDialect = {
  timestamp: 'datetime',
  autoIncrementPrimaryKey: 'integer PRIMARY KEY AUTOINCREMENT NOT NULL',
  false: '0',
};

const POSTGRES: SqlDialect = {
  timestamp: 'timestamptz',
  autoIncrementPrimaryKey: 'SERIAL PRIMARY KEY',
  false: 'false',
};

export function dialectOf(queryRunner: QueryRunner): SqlDialect {
  return queryRunner.connection.driver.options.type === 'postgres' ? POSTGRES : SQLITE;
}

/** Runs a migration's statements in order. */
export async function runStatements(queryRunner: QueryRunner, statements: string[]): Promise<void> {
  for (const statement of statements) {
    await queryRunner.query(statement);
  }
}
