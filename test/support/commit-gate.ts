import { randomBytes, randomInt } from 'node:crypto';
import { DataSource, QueryRunner } from 'typeorm';
import { waitFor } from './server-process';

export interface CommitGate {
  /** Resolves once a transaction that updated a matching row is waiting at its commit. */
  reached(): Promise<void>;
  /** Lets every waiting (and later) commit through, and removes the gate. */
  release(): Promise<void>;
}

/**
 * Holds back the commit of every transaction that updates (or, with `event`
 * INSERT, inserts) a matching row of `table` until released (PostgreSQL only: a deferred constraint trigger
 * waits on an advisory lock the gate holds). The application's code runs
 * unchanged up to its COMMIT, so a test can run another unit of work in
 * the window between a write and its commit, where races live. Scope `when`
 * (`NEW."task_id" = '…'`) to the test's own rows.
 */
export async function holdCommits(dataSource: DataSource, table: string, when: string, event: 'UPDATE' | 'INSERT' = 'UPDATE'): Promise<CommitGate> {
  const name = `commit_gate_${randomBytes(6).toString('hex')}`;
  const key = randomInt(1, 2 ** 31 - 1);
  const holder: QueryRunner = dataSource.createQueryRunner();
  await holder.connect();
  await holder.query('SELECT pg_advisory_lock($1)', [key]);
  await dataSource.query(
    `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_advisory_xact_lock_shared(${key}); RETURN NULL; END $$`,
  );
  await dataSource.query(
    `CREATE CONSTRAINT TRIGGER ${name} AFTER ${event} ON "${table}" DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (${when}) EXECUTE FUNCTION ${name}()`,
  );
  let released = false;
  return {
    reached: () =>
      waitFor(
        async () => {
          const [{ waiting }] = await dataSource.query(
            "SELECT count(*)::int AS waiting FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objid = $1",
            [key],
          );
          return waiting > 0;
        },
        10_000,
        `a commit to wait at gate ${name}`,
      ),
    release: async () => {
      if (released) return;
      released = true;
      // Unlocked first: dropping the trigger waits for the transactions it holds back.
      await holder.query('SELECT pg_advisory_unlock($1)', [key]);
      await holder.release();
      await dataSource.query(`DROP TRIGGER ${name} ON "${table}"`);
      await dataSource.query(`DROP FUNCTION ${name}()`);
    },
  };
}
