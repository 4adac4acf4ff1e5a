import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';

export interface WriteFault {
  table: string;
  event: 'INSERT' | 'UPDATE';
  /** A SQL condition on the row (`NEW."user_id" = '…'`), written once for both databases. */
  when: string;
}

/**
 * Makes the database refuse matching writes, as a failing disk or a lost
 * connection would, until the returned function removes the fault. A real
 * trigger, so the application's own code runs unchanged up to the failing
 * statement (nothing is mocked). Scope `when` to the test's own rows: on
 * PostgreSQL the suites share one database.
 */
export async function injectWriteFault(dataSource: DataSource, fault: WriteFault): Promise<() => Promise<void>> {
  const name = `injected_fault_${randomBytes(6).toString('hex')}`;
  if (dataSource.options.type === 'postgres') {
    await dataSource.query(
      `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected fault'; END $$`,
    );
    await dataSource.query(
      `CREATE TRIGGER ${name} BEFORE ${fault.event} ON "${fault.table}" FOR EACH ROW WHEN (${fault.when}) EXECUTE FUNCTION ${name}()`,
    );
    return async () => {
      await dataSource.query(`DROP TRIGGER ${name} ON "${fault.table}"`);
      await dataSource.query(`DROP FUNCTION ${name}()`);
    };
  }
  await dataSource.query(
    `CREATE TRIGGER ${name} BEFORE ${fault.event} ON "${fault.table}" WHEN ${fault.when} BEGIN SELECT RAISE(ABORT, 'injected fault'); END`,
  );
  return async () => {
    await dataSource.query(`DROP TRIGGER ${name}`);
  };
}
