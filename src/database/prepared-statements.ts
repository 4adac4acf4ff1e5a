import { DataSource, EntityManager, EntityMetadata, EntityTarget, FindOneOptions, ObjectLiteral } from 'typeorm';
import { Driver } from 'typeorm/driver/Driver';
import { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';

export interface JoinedEntity {
  target: EntityTarget<ObjectLiteral>;
  /** Table alias, also the prefix of the entity's column aliases in the row. */
  alias: string;
}

/** `"alias"."column" AS "alias_column"` for every column of the entity. */
export function selectColumns(dataSource: DataSource, { target, alias }: JoinedEntity): string {
  const escape = (name: string) => dataSource.driver.escape(name);
  return dataSource
    .getMetadata(target)
    .columns.map((column) => `${escape(alias)}.${escape(column.databaseName)} AS ${escape(`${alias}_${column.databaseName}`)}`)
    .join(', ');
}

/** SQL written once per driver (escaping and parameter syntax differ) and reused for every request. */
export class PreparedSql {
  private readonly byDriver = new Map<string, string>();

  constructor(private readonly build: (dataSource: DataSource) => string) {}

  for(dataSource: DataSource): string {
    const driverType = String(dataSource.options.type);
    let sql = this.byDriver.get(driverType);
    if (sql === undefined) {
      sql = this.build(dataSource);
      this.byDriver.set(driverType, sql);
    }
    return sql;
  }
}

function columnOf(metadata: EntityMetadata, property: string): ColumnMetadata {
  const column = metadata.findColumnWithPropertyName(property);
  if (!column) throw new Error(`${metadata.name} has no column for property ${property}`);
  return column;
}

interface HydrationPlan {
  metadata: EntityMetadata;
  primaryKey: string;
  columns: { key: string; column: ColumnMetadata }[];
}

/** Per data source and entity alias: which row key feeds which column (worked out once, not per row). */
const plans = new WeakMap<DataSource, Map<string, HydrationPlan>>();

function hydrationPlan(dataSource: DataSource, { target, alias }: JoinedEntity): HydrationPlan {
  let byEntity = plans.get(dataSource);
  if (!byEntity) {
    byEntity = new Map();
    plans.set(dataSource, byEntity);
  }
  const metadata = dataSource.getMetadata(target);
  const planKey = `${metadata.name}\u0000${alias}`;
  let plan = byEntity.get(planKey);
  if (!plan) {
    plan = {
      metadata,
      primaryKey: `${alias}_${metadata.primaryColumns[0].databaseName}`,
      columns: metadata.columns.map((column) => ({ key: `${alias}_${column.databaseName}`, column })),
    };
    byEntity.set(planKey, plan);
  }
  return plan;
}

/**
 * Builds an entity from one row of a hand-written query, converting each
 * value with the driver's own rules (booleans, simple-json, dates), exactly
 * as TypeORM would. Undefined when the row has no such entity (a LEFT JOIN
 * that found nothing).
 */
export function hydrate<T extends ObjectLiteral>(dataSource: DataSource, entity: JoinedEntity, row: Record<string, unknown>): T | undefined {
  const plan = hydrationPlan(dataSource, entity);
  if (row[plan.primaryKey] === null || row[plan.primaryKey] === undefined) {
    return undefined;
  }
  const result = plan.metadata.create() as Record<string, unknown>;
  for (const { key, column } of plan.columns) {
    result[column.propertyName] = dataSource.driver.prepareHydratedValue(row[key], column);
  }
  return result as T;
}

/**
 * A findOne whose SQL is built once: TypeORM's find options cost more to
 * turn into SQL on every request than the query costs to run. `where` is an
 * OR of ANDs of equalities on entity properties (like TypeORM's `where`
 * array). It takes the same `lock` option as findOne (from
 * TransactionRunner.lockForUpdate: FOR UPDATE on PostgreSQL, none on SQLite,
 * which serialises writers instead).
 */
export class PreparedFindOne<T extends ObjectLiteral> {
  private readonly entity: JoinedEntity;
  private readonly plain = new PreparedSql((dataSource) => this.build(dataSource, ''));
  private readonly forUpdate = new PreparedSql((dataSource) => this.build(dataSource, ' FOR UPDATE'));

  constructor(
    target: EntityTarget<T>,
    private readonly where: (keyof T & string)[][],
  ) {
    this.entity = { target, alias: 't' };
  }

  async run(
    manager: EntityManager,
    values: Partial<Record<keyof T & string, unknown>>,
    { lock }: Pick<FindOneOptions, 'lock'> = {},
  ): Promise<T | null> {
    if (lock && lock.mode !== 'pessimistic_write') {
      throw new Error(`PreparedFindOne supports only pessimistic_write locks, not ${lock.mode}`);
    }
    const sql = (lock ? this.forUpdate : this.plain).for(manager.connection);
    const [row] = await manager.query<Record<string, unknown>[]>(sql, this.where.flat().map((property) => values[property]));
    return row ? (hydrate<T>(manager.connection, this.entity, row) ?? null) : null;
  }

  private build(dataSource: DataSource, lockClause: string): string {
    const { driver } = dataSource;
    const metadata = dataSource.getMetadata(this.entity.target);
    const alias = driver.escape(this.entity.alias);
    let index = 0;
    const conditions = this.where.map((group) =>
      group
        .map((property) => `${alias}.${driver.escape(columnOf(metadata, property).databaseName)} = ${driver.createParameter(property, index++)}`)
        .join(' AND '),
    );
    return (
      `SELECT ${selectColumns(dataSource, this.entity)} FROM ${driver.escape(metadata.tableName)} ${alias}` +
      ` WHERE ${conditions.map((condition) => `(${condition})`).join(' OR ')} LIMIT 1${lockClause}`
    );
  }
}

/** A statement over some of an entity's columns, and those columns in parameter order. */
interface ColumnStatement {
  sql: string;
  columns: ColumnMetadata[];
}

/** Statements per driver and set of properties, built on first use; at most `limit` are kept. */
class ColumnStatements<T extends ObjectLiteral> {
  private readonly statements = new Map<string, ColumnStatement>();

  constructor(
    private readonly target: EntityTarget<T>,
    private readonly limit: number,
    private readonly build: (driver: Driver, metadata: EntityMetadata, columns: ColumnMetadata[]) => string,
  ) {}

  for(dataSource: DataSource, properties: (keyof T & string)[]): ColumnStatement {
    const key = `${String(dataSource.options.type)}:${properties.join(',')}`;
    let statement = this.statements.get(key);
    if (!statement) {
      const metadata = dataSource.getMetadata(this.target);
      const columns = properties.map((property) => columnOf(metadata, property));
      statement = { sql: this.build(dataSource.driver, metadata, columns), columns };
      if (this.statements.size < this.limit) this.statements.set(key, statement);
    }
    return statement;
  }
}

/** The given properties' values, in order, converted by the driver as TypeORM converts them for a write. */
function persistentValues<T extends ObjectLiteral>(driver: Driver, values: Partial<T>, statement: ColumnStatement, properties: (keyof T & string)[]): unknown[] {
  return properties.map((property, index): unknown => driver.preparePersistentValue(values[property], statement.columns[index]));
}

/** The properties whose value is not undefined ("not given"). */
function givenProperties<T extends ObjectLiteral>(values: Partial<T>): (keyof T & string)[] {
  return (Object.keys(values) as (keyof T & string)[]).filter((property) => values[property] !== undefined);
}

/**
 * An UPDATE of the given properties of the rows matching `where` (equalities
 * on entity properties), with values converted by the driver exactly as
 * `manager.update` converts them. The SQL is built once per driver and set
 * of changed properties. Undefined changes are left out, as "no change".
 */
export class PreparedUpdate<T extends ObjectLiteral> {
  // Clients choose which fields a PUT changes, so the sets are theirs to
  // vary: the common ones are kept, any others built per call.
  private readonly statements = new ColumnStatements<T>(this.target, 64, (driver, metadata, columns) => {
    const equals = (column: ColumnMetadata, index: number) => `${driver.escape(column.databaseName)} = ${driver.createParameter(column.databaseName, index)}`;
    const sets = columns.map((column, index) => equals(column, index));
    const conditions = this.where.map((property, index) => equals(columnOf(metadata, property), columns.length + index));
    return `UPDATE ${driver.escape(metadata.tableName)} SET ${sets.join(', ')} WHERE ${conditions.join(' AND ')}`;
  });

  constructor(
    private readonly target: EntityTarget<T>,
    private readonly where: (keyof T & string)[],
  ) {}

  async run(manager: EntityManager, where: Partial<Record<keyof T & string, unknown>>, changes: Partial<T>): Promise<void> {
    const properties = givenProperties(changes);
    if (properties.length === 0) return;
    const statement = this.statements.for(manager.connection, properties);
    const values = persistentValues(manager.connection.driver, changes, statement, properties);
    await manager.query(statement.sql, [...values, ...this.where.map((property) => where[property])]);
  }
}

/** On a unique violation of `columns`, update `update` to the new row's values instead (an upsert). */
export interface OnConflict<T> {
  columns: (keyof T & string)[];
  update: (keyof T & string)[];
}

/**
 * An INSERT of one row, with values converted by the driver exactly as
 * `manager.insert` converts them. Undefined properties are left out, so the
 * column's default applies, as with `manager.insert`. With `onConflict`, an
 * upsert in one statement (`ON CONFLICT ... DO UPDATE`, the same SQL on
 * SQLite and PostgreSQL).
 */
export class PreparedInsert<T extends ObjectLiteral> {
  // Callers insert a fixed set of properties, so a handful of statements at most.
  private readonly statements = new ColumnStatements<T>(this.target, 16, (driver, metadata, columns) => {
    const names = columns.map((column) => driver.escape(column.databaseName));
    const parameters = columns.map((column, index) => driver.createParameter(column.databaseName, index));
    const insert = `INSERT INTO ${driver.escape(metadata.tableName)} (${names.join(', ')}) VALUES (${parameters.join(', ')})`;
    if (!this.onConflict) return insert;
    const name = (property: keyof T & string) => driver.escape(columnOf(metadata, property).databaseName);
    const updates = this.onConflict.update.map((property) => `${name(property)} = EXCLUDED.${name(property)}`);
    return `${insert} ON CONFLICT (${this.onConflict.columns.map(name).join(', ')}) DO UPDATE SET ${updates.join(', ')}`;
  });

  constructor(
    private readonly target: EntityTarget<T>,
    private readonly onConflict?: OnConflict<T>,
  ) {}

  async run(manager: EntityManager, row: Partial<T>): Promise<void> {
    const properties = givenProperties(row);
    const statement = this.statements.for(manager.connection, properties);
    await manager.query(statement.sql, persistentValues(manager.connection.driver, row, statement, properties));
  }
}

/**
 * The rows a statement returns (`UPDATE ... RETURNING` included) on either
 * driver: `manager.query` shapes an UPDATE's result differently per driver.
 */
export async function queryRows<R>(manager: EntityManager, sql: string, parameters: unknown[]): Promise<R[]> {
  const runner = manager.queryRunner ?? manager.connection.createQueryRunner();
  try {
    const result = await runner.query(sql, parameters, true);
    return (result.records ?? []) as R[];
  } finally {
    if (runner !== manager.queryRunner) await runner.release();
  }
}
