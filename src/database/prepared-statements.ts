import { DataSource, EntityManager, EntityMetadata, EntityTarget, FindOneOptions, ObjectLiteral } from 'typeorm';
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

/**
 * An UPDATE of the given properties of the rows matching `where` (equalities
 * on entity properties), with values converted by the driver exactly as
 * `manager.update` converts them. The SQL is built once per driver and set
 * of changed properties. Undefined changes are left out, as "no change".
 */
export class PreparedUpdate<T extends ObjectLiteral> {
  /**
   * Statements kept, at most: clients choose which fields a PUT changes, so
   * the sets are theirs to vary; the common ones are cached, any others built
   * per call.
   */
  private static readonly MAX_CACHED = 64;
  private readonly sql = new Map<string, { sql: string; columns: ColumnMetadata[] }>();

  constructor(
    private readonly target: EntityTarget<T>,
    private readonly where: (keyof T & string)[],
  ) {}

  async run(manager: EntityManager, where: Partial<Record<keyof T & string, unknown>>, changes: Partial<T>): Promise<void> {
    const properties = (Object.keys(changes) as (keyof T & string)[]).filter((property) => changes[property] !== undefined);
    if (properties.length === 0) return;
    const { driver } = manager.connection;
    const statement = this.statementFor(manager.connection, properties);
    const values: unknown[] = [
      ...properties.map((property, index): unknown => driver.preparePersistentValue(changes[property], statement.columns[index])),
      ...this.where.map((property) => where[property]),
    ];
    await manager.query(statement.sql, values);
  }

  /** The statement, and the columns of its SET clause in parameter order. */
  private statementFor(dataSource: DataSource, properties: (keyof T & string)[]): { sql: string; columns: ColumnMetadata[] } {
    const key = `${String(dataSource.options.type)}:${properties.join(',')}`;
    let statement = this.sql.get(key);
    if (!statement) {
      const { driver } = dataSource;
      const metadata = dataSource.getMetadata(this.target);
      const columns = properties.map((property) => columnOf(metadata, property));
      const assignment = (property: string, index: number) =>
        `${driver.escape(columnOf(metadata, property).databaseName)} = ${driver.createParameter(property, index)}`;
      const sets = properties.map((property, index) => assignment(property, index));
      const conditions = this.where.map((property, index) => assignment(property, properties.length + index));
      statement = {
        sql: `UPDATE ${driver.escape(metadata.tableName)} SET ${sets.join(', ')} WHERE ${conditions.join(' AND ')}`,
        columns,
      };
      if (this.sql.size < PreparedUpdate.MAX_CACHED) this.sql.set(key, statement);
    }
    return statement;
  }
}
