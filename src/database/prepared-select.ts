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
  private readonly sql = new Map<string, string>();
  private readonly entity: JoinedEntity;

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
    const parameters = this.where.flat().map((property) => values[property]);
    const [row] = await manager.query<Record<string, unknown>[]>(this.sqlFor(manager.connection, lock !== undefined), parameters);
    return row ? (hydrate<T>(manager.connection, this.entity, row) ?? null) : null;
  }

  private sqlFor(dataSource: DataSource, forUpdate: boolean): string {
    // One statement per driver and lock: tests may run SQLite and PostgreSQL data sources in one process.
    const driverType = String(dataSource.options.type);
    const key = `${driverType}:${forUpdate}`;
    let sql = this.sql.get(key);
    if (!sql) {
      const { driver } = dataSource;
      const metadata = dataSource.getMetadata(this.entity.target);
      const alias = driver.escape(this.entity.alias);
      let index = 0;
      const conditions = this.where.map((group) =>
        group
          .map((property) => {
            const column = metadata.findColumnWithPropertyName(property);
            if (!column) throw new Error(`${metadata.name} has no column for property ${property}`);
            return `${alias}.${driver.escape(column.databaseName)} = ${driver.createParameter(property, index++)}`;
          })
          .join(' AND '),
      );
      const lock = forUpdate ? ' FOR UPDATE' : '';
      sql =
        `SELECT ${selectColumns(dataSource, this.entity)} FROM ${driver.escape(metadata.tableName)} ${alias}` +
        ` WHERE ${conditions.map((condition) => `(${condition})`).join(' OR ')} LIMIT 1${lock}`;
      this.sql.set(key, sql);
    }
    return sql;
  }
}
