import { createHash } from 'node:crypto';
import { DataSource, EntityManager, EntityMetadata, EntityTarget, FindOneOptions, ObjectLiteral } from 'typeorm';
import { Driver } from 'typeorm/driver/Driver';
import { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';

export interface JoinedEntity {
  target: EntityTarget<ObjectLiteral>;
  /** Table alias, also the prefix of the entity's column aliases in the SQL. */
  alias: string;
  /**
   * The properties selected, in this order (the primary key among them), for
   * a query that needs a few of a wide row's columns: every column, in
   * metadata order, when absent.
   */
  properties?: readonly string[];
}

/** The columns a query selects of the entity (see JoinedEntity.properties). */
function selectedColumns(metadata: EntityMetadata, { properties }: JoinedEntity): ColumnMetadata[] {
  return properties ? properties.map((property) => columnOf(metadata, property)) : metadata.columns;
}

/** `"alias"."column" AS "alias_column"` for each selected column of the entity, in order. */
function selectColumns(dataSource: DataSource, entity: JoinedEntity): string {
  const escape = (name: string) => dataSource.driver.escape(name);
  const { alias } = entity;
  return selectedColumns(dataSource.getMetadata(entity.target), entity)
    .map((column) => `${escape(alias)}.${escape(column.databaseName)} AS ${escape(`${alias}_${column.databaseName}`)}`)
    .join(', ');
}

/** Something worked out once per driver (escaping and parameter syntax differ) and reused for every request. */
class PerDriver<T> {
  private readonly byDriver = new Map<string, T>();

  constructor(private readonly build: (dataSource: DataSource) => T) {}

  for(dataSource: DataSource): T {
    const driverType = String(dataSource.options.type);
    let built = this.byDriver.get(driverType);
    if (built === undefined) {
      built = this.build(dataSource);
      this.byDriver.set(driverType, built);
    }
    return built;
  }
}

/** SQL written once per driver and reused for every request. */
export class PreparedSql extends PerDriver<string> {}

/** The part of a better-sqlite3 connection used here (the package ships no types). */
interface SqliteDatabase {
  prepare(sql: string): { raw(toggle: boolean): SqliteStatement };
}
interface SqliteStatement {
  get(...parameters: unknown[]): unknown[] | undefined;
  all(...parameters: unknown[]): unknown[][];
}
/** The part of a pg pool or client used here. */
interface PostgresClient {
  query(config: { name?: string; text: string; values: unknown[]; rowMode: 'array' }): Promise<{ rows: unknown[][] }>;
}

const statementNames = new Map<string, string>();

/**
 * The server-side name of a statement: PostgreSQL parses and plans a named
 * statement once per connection (then reuses its generic plan), where an
 * unnamed one is planned on every execution. The node display query's
 * planning alone cost twice its execution. The name is the SQL's hash, so
 * one text always has one name (pg refuses to reuse a name for other SQL).
 */
function statementName(sql: string): string {
  let name = statementNames.get(sql);
  if (name === undefined) {
    name = `q_${createHash('sha1').update(sql).digest('hex')}`;
    statementNames.set(sql, name);
  }
  return name;
}

/** Whether a transaction is open on a SQLite data source's one connection (false on PostgreSQL). */
export function sqliteInTransaction(dataSource: DataSource): boolean {
  if (dataSource.driver.options.type !== 'better-sqlite3') return false;
  return (dataSource.driver as unknown as { databaseConnection: { inTransaction: boolean } }).databaseConnection.inTransaction;
}

const sqliteStatements = new WeakMap<SqliteDatabase, Map<string, SqliteStatement>>();

function sqliteStatement(database: SqliteDatabase, sql: string): SqliteStatement {
  let statements = sqliteStatements.get(database);
  if (!statements) {
    statements = new Map();
    sqliteStatements.set(database, statements);
  }
  let statement = statements.get(sql);
  if (!statement) {
    statement = database.prepare(sql).raw(true);
    statements.set(sql, statement);
  }
  return statement;
}

/**
 * The rows of a SELECT, each as an array of its values in select-list order,
 * asked of the driver directly, on the manager's transaction when it has
 * one. Both drivers build a keyed object per row otherwise (53 properties
 * for a node's display row), which costs more than running the query, and
 * TypeORM's query path adds its own per-statement work on top (see
 * docs/decisions.md). Values are the driver's own, as TypeORM would get them.
 * `named`: prepared server-side on PostgreSQL (see statementName).
 */
async function rowValues(
  manager: EntityManager,
  sql: string,
  parameters: unknown[],
  rows: 'first' | 'all',
  { named }: { named: boolean },
): Promise<unknown[][]> {
  const { driver } = manager.connection;
  if (driver.options.type === 'better-sqlite3') {
    // One connection serves every query runner, transactions included.
    const statement = sqliteStatement((driver as unknown as { databaseConnection: SqliteDatabase }).databaseConnection, sql);
    if (rows === 'all') return statement.all(...parameters);
    const first = statement.get(...parameters);
    return first ? [first] : [];
  }
  const runner = manager.queryRunner;
  const client: PostgresClient =
    runner && !runner.isReleased ? ((await runner.connect()) as PostgresClient) : (driver as unknown as { master: PostgresClient }).master;
  return (await client.query({ name: named ? statementName(sql) : undefined, text: sql, values: parameters, rowMode: 'array' })).rows;
}

/**
 * A SELECT of whole entities, in the order given, followed by any extra
 * expressions the query adds (`build` gets the entities' select list). Its
 * SQL is built once per driver; its first row is read as an array, and each
 * entity is hydrated from its columns' positions.
 */
export class PreparedSelect {
  private readonly prepared: PerDriver<{ sql: string; offsets: number[] }>;

  constructor(
    private readonly entities: JoinedEntity[],
    build: (dataSource: DataSource, selectList: string) => string,
  ) {
    this.prepared = new PerDriver((dataSource) => {
      const offsets = [0];
      for (const entity of entities) {
        offsets.push(offsets[offsets.length - 1] + selectedColumns(dataSource.getMetadata(entity.target), entity).length);
      }
      return { sql: build(dataSource, entities.map((entity) => selectColumns(dataSource, entity)).join(', ')), offsets };
    });
  }

  /** The query's first row, or undefined when it found none. */
  async first(manager: EntityManager, parameters: unknown[]): Promise<SelectedRow | undefined> {
    return (await this.rows(manager, parameters, 'first'))[0];
  }

  /** Every row of the query. */
  all(manager: EntityManager, parameters: unknown[]): Promise<SelectedRow[]> {
    return this.rows(manager, parameters, 'all');
  }

  private async rows(manager: EntityManager, parameters: unknown[], rows: 'first' | 'all'): Promise<SelectedRow[]> {
    const { sql, offsets } = this.prepared.for(manager.connection);
    // A PreparedSelect's SQL is fixed per driver, so naming it keeps a bounded set of statements per connection.
    const values = await rowValues(manager, sql, parameters, rows, { named: true });
    return values.map((row) => new SelectedRow(manager.connection, this.entities, offsets, row));
  }
}

/**
 * A SELECT whose rows are used as the driver gives them, arrays of values in
 * select-list order (the catalog's page walks, and a page's rows, whose
 * reply nodeListText puts together from them): SQL built once per driver,
 * named on PostgreSQL like a PreparedSelect's.
 */
export class PreparedRows {
  private readonly sql: PreparedSql;

  constructor(build: (dataSource: DataSource) => string) {
    this.sql = new PreparedSql(build);
  }

  all(manager: EntityManager, parameters: unknown[]): Promise<unknown[][]> {
    return rowValues(manager, this.sql.for(manager.connection), parameters, 'all', { named: true });
  }
}

/**
 * How hydration converts a value of the entity's column (see conversionOf):
 * the identity where it converts nothing. For code that reads PreparedRows
 * values and must see what an entity would hold.
 */
export function hydratedValue<T extends ObjectLiteral>(dataSource: DataSource, target: EntityTarget<T>, property: keyof T & string): (value: unknown) => unknown {
  const plan = hydrationPlan(dataSource, { target, alias: '' });
  return plan.conversions[plan.properties.indexOf(property)] ?? ((value) => value);
}

/** One row of a PreparedSelect. */
export class SelectedRow {
  constructor(
    private readonly dataSource: DataSource,
    private readonly entities: JoinedEntity[],
    private readonly offsets: number[],
    private readonly values: unknown[],
  ) {}

  /** One of the selected entities; undefined when the row has none (a LEFT JOIN that found nothing). */
  entity<T extends ObjectLiteral>(entity: JoinedEntity): T | undefined {
    const index = this.entities.indexOf(entity);
    if (index === -1) throw new Error(`${entity.alias} is not selected by this query`);
    return hydrate<T>(this.dataSource, entity, this.values, this.offsets[index]);
  }

  /** The value of the `index`-th expression selected after the entities. */
  extra(index: number): unknown {
    return this.values[this.offsets[this.offsets.length - 1] + index];
  }
}

function columnOf(metadata: EntityMetadata, property: string): ColumnMetadata {
  const column = metadata.findColumnWithPropertyName(property);
  if (!column) throw new Error(`${metadata.name} has no column for property ${property}`);
  return column;
}

interface HydrationPlan {
  metadata: EntityMetadata;
  /** Position of the primary key among the selected columns. */
  primaryIndex: number;
  /** Per selected column, in order: its property and the driver's conversion, or null where there is none. */
  properties: string[];
  conversions: (((value: unknown) => unknown) | null)[];
}

/**
 * Column types that both drivers' prepareHydratedValue return unchanged (it
 * converts booleans, dates, JSON, arrays, enums and transformed columns), so
 * hydration can skip the call; a row has dozens of them.
 */
const UNCONVERTED_TYPES = new Set<unknown>(['varchar', 'text', 'integer', 'double precision']);

/** The separators of `YYYY-MM-DD HH:MM:SS.SSS` by position; undefined where a digit goes. */
const SQLITE_DATETIME_SEPARATORS: (number | undefined)[] = [...'0000-00-00 00:00:00.000'].map((c) => (c === '0' ? undefined : c.charCodeAt(0)));

/** `YYYY-MM-DD HH:MM:SS.SSS`, the form TypeORM writes datetimes in on SQLite (digits checked, not just shape). */
export function isSqliteDatetime(value: unknown): value is string {
  if (typeof value !== 'string' || value.length !== 23) return false;
  for (let index = 0; index < 23; index += 1) {
    const code = value.charCodeAt(index);
    const expected = SQLITE_DATETIME_SEPARATORS[index];
    if (expected === undefined ? code < 48 || code > 57 : code !== expected) return false;
  }
  return true;
}

/** The ISO text (`YYYY-MM-DDTHH:MM:SS.SSSZ`) of SQLite datetime text that isSqliteDatetime accepts (UTC, as TypeORM writes it). */
export function sqliteDatetimeIso(value: string): string {
  return `${value.slice(0, 10)}T${value.slice(11)}Z`;
}

/**
 * The driver's hydration of a column (prepareHydratedValue), with the common
 * cases taken first: a display row has eleven JSON columns and three
 * datetimes, and the driver's generic path (a chain of type tests, and on
 * SQLite two regular expressions and a replace per datetime) was a tenth of
 * a catalog page's CPU. Each shortcut gives what the driver gives for that
 * value: simple-json text is JSON.parse'd (`[]` made directly); a Date (PostgreSQL's driver
 * parses timestamps) is kept; SQLite's datetime text becomes the Date of its
 * ISO form with `T` and `Z`, as TypeORM's regular expressions make it.
 * Anything else goes to the driver.
 */
function conversionOf(driver: Driver, column: ColumnMetadata): ((value: unknown) => unknown) | null {
  const general = (value: unknown): unknown => driver.prepareHydratedValue(value, column);
  if (column.transformer) return general;
  if (UNCONVERTED_TYPES.has(column.type)) return null;
  if (column.type === 'simple-json') {
    // Most of them hold an empty array, which needs no parser.
    return (value): unknown => (value === '[]' ? [] : typeof value === 'string' ? (JSON.parse(value) as unknown) : general(value));
  }
  if (column.type === Date || column.type === 'datetime') {
    return (value) =>
      value instanceof Date ? value : isSqliteDatetime(value) ? new Date(sqliteDatetimeIso(value)) : general(value);
  }
  return general;
}

/**
 * Per data source and entity, worked out once, not per row: keyed by the
 * entity where it selects some properties, by its target where it selects them all.
 */
const plans = new WeakMap<DataSource, Map<EntityTarget<ObjectLiteral> | JoinedEntity, HydrationPlan>>();

function hydrationPlan(dataSource: DataSource, entity: JoinedEntity): HydrationPlan {
  let byEntity = plans.get(dataSource);
  if (!byEntity) {
    byEntity = new Map();
    plans.set(dataSource, byEntity);
  }
  const key = entity.properties ? entity : entity.target;
  let plan = byEntity.get(key);
  if (!plan) {
    const metadata = dataSource.getMetadata(entity.target);
    const columns = selectedColumns(metadata, entity);
    const primaryIndex = columns.indexOf(metadata.primaryColumns[0]);
    if (primaryIndex === -1) throw new Error(`${metadata.name}: a query must select its primary key`);
    plan = {
      metadata,
      primaryIndex,
      properties: columns.map((column) => column.propertyName),
      conversions: columns.map((column) => conversionOf(dataSource.driver, column)),
    };
    byEntity.set(key, plan);
  }
  return plan;
}

/**
 * Builds an entity from its selected columns' values, starting at `offset`
 * of a row (in the order selectColumns lists them), converting each with the
 * driver's own rules (booleans, simple-json, dates) exactly as TypeORM
 * would. Undefined when the row has no such entity.
 */
function hydrate<T extends ObjectLiteral>(dataSource: DataSource, entity: JoinedEntity, values: unknown[], offset: number): T | undefined {
  const { metadata, primaryIndex, properties, conversions } = hydrationPlan(dataSource, entity);
  const primaryKey = values[offset + primaryIndex];
  if (primaryKey === null || primaryKey === undefined) {
    return undefined;
  }
  const result = metadata.create() as Record<string, unknown>;
  for (let index = 0; index < properties.length; index += 1) {
    const value = values[offset + index];
    const convert = conversions[index];
    result[properties[index]] = convert === null ? value : convert(value);
  }
  return result as T;
}

/**
 * A findOne whose SQL is built once: TypeORM's find options cost more to
 * turn into SQL on every request than the query costs to run. `where` is an
 * OR of ANDs of equalities on entity properties (like TypeORM's `where`
 * array). It takes the same `lock` option as findOne (from
 * TransactionRunner.lockForUpdate; none on SQLite, which serialises writers
 * instead), FOR NO KEY UPDATE on PostgreSQL.
 */
export class PreparedFindOne<T extends ObjectLiteral> {
  private readonly entity: JoinedEntity;
  private readonly plain: PreparedSelect;
  private readonly forUpdate: PreparedSelect;

  constructor(
    target: EntityTarget<T>,
    private readonly where: (keyof T & string)[][],
  ) {
    this.entity = { target, alias: 't' };
    this.plain = new PreparedSelect([this.entity], (dataSource, selectList) => this.build(dataSource, selectList, ''));
    this.forUpdate = new PreparedSelect([this.entity], (dataSource, selectList) => this.build(dataSource, selectList, ' FOR NO KEY UPDATE'));
  }

  async run(
    manager: EntityManager,
    values: Partial<Record<keyof T & string, unknown>>,
    { lock }: Pick<FindOneOptions, 'lock'> = {},
  ): Promise<T | null> {
    if (lock && lock.mode !== 'for_no_key_update') {
      throw new Error(`PreparedFindOne supports only for_no_key_update locks, not ${lock.mode}`);
    }
    const row = await (lock ? this.forUpdate : this.plain).first(
      manager,
      this.where.flat().map((property) => values[property]),
    );
    return row?.entity<T>(this.entity) ?? null;
  }

  private build(dataSource: DataSource, selectList: string, lockClause: string): string {
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
      `SELECT ${selectList} FROM ${driver.escape(metadata.tableName)} ${alias}` +
      ` WHERE ${conditions.map((condition) => `(${condition})`).join(' OR ')} LIMIT 1${lockClause}`
    );
  }
}

/** A statement over some of an entity's columns, and those columns in parameter order. */
interface ColumnStatement {
  sql: string;
  columns: ColumnMetadata[];
  /** Kept for reuse: one of at most `limit` statements, so it may be prepared server-side (see statementName). */
  kept: boolean;
}

/** Statements per driver and set of properties, built on first use; at most `limit` are kept. */
class ColumnStatements<T extends ObjectLiteral> {
  private readonly statements = new Map<string, ColumnStatement>();

  constructor(
    private readonly target: EntityTarget<T>,
    private readonly limit: number,
    private readonly build: (dataSource: DataSource, metadata: EntityMetadata, columns: ColumnMetadata[]) => string,
  ) {}

  for(dataSource: DataSource, properties: (keyof T & string)[]): ColumnStatement {
    const key = `${String(dataSource.options.type)}:${properties.join(',')}`;
    let statement = this.statements.get(key);
    if (!statement) {
      const metadata = dataSource.getMetadata(this.target);
      const columns = properties.map((property) => columnOf(metadata, property));
      const kept = this.statements.size < this.limit;
      statement = { sql: this.build(dataSource, metadata, columns), columns, kept };
      if (kept) this.statements.set(key, statement);
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

/** `RETURNING` every column of the entity, in metadata order (as `writtenRow` reads them). */
function returningEveryColumn(driver: Driver, metadata: EntityMetadata): string {
  return `RETURNING ${metadata.columns.map((column) => driver.escape(column.databaseName)).join(', ')}`;
}

/**
 * The row an `INSERT`/`UPDATE ... RETURNING` (returningEveryColumn) wrote, as
 * an entity hydrated with the driver's own conversions; null when the
 * statement matched no row.
 */
async function writtenRow<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  statement: ColumnStatement,
  parameters: unknown[],
): Promise<T | null> {
  // An UPDATE's SQL varies with the columns a client sends: only the statements kept for reuse are prepared
  // server-side, so a client varying its columns cannot pile up prepared statements on a connection.
  const [row] = await rowValues(manager, statement.sql, parameters, 'first', { named: statement.kept });
  return row ? (hydrate<T>(manager.connection, { target, alias: '' }, row, 0) ?? null) : null;
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
  private readonly statements = new ColumnStatements<T>(this.target, 64, (dataSource, metadata, columns) => this.build(dataSource, metadata, columns));
  private readonly returningStatements = new ColumnStatements<T>(this.target, 64, (dataSource, metadata, columns) =>
    `${this.build(dataSource, metadata, columns)} ${returningEveryColumn(dataSource.driver, metadata)}`,
  );

  /**
   * `guard`: another row that must match too, for the update to happen
   * (`AND EXISTS (SELECT 1 FROM … WHERE …)`), e.g. a version's node with the
   * status the caller checked; its values follow `where`'s.
   */
  constructor(
    private readonly target: EntityTarget<T>,
    private readonly where: (keyof T & string)[],
    private readonly guard?: ExistsGuard,
  ) {}

  async run(manager: EntityManager, where: WhereValues<T>, changes: Partial<T>): Promise<void> {
    const properties = givenProperties(changes);
    if (properties.length === 0) return;
    const statement = this.statements.for(manager.connection, properties);
    await manager.query(statement.sql, this.parameters(manager, statement, properties, where, changes));
  }

  /**
   * The same UPDATE, returning the row as it wrote it (`RETURNING`, on both
   * databases), or null when no row matched `where`. Meant for a key plus
   * guards (e.g. the status the caller checked), so a concurrent change to a
   * guard makes the update miss instead of writing over it.
   */
  async runReturning(manager: EntityManager, where: WhereValues<T>, changes: Partial<T>, guard?: WhereValues<ObjectLiteral>): Promise<T | null> {
    const properties = givenProperties(changes);
    if (properties.length === 0) throw new Error('runReturning needs at least one change');
    const statement = this.returningStatements.for(manager.connection, properties);
    return writtenRow(manager, this.target, statement, this.parameters(manager, statement, properties, where, changes, guard));
  }

  /** `UPDATE … SET … WHERE …` with its parameters in order: the set columns, the where, then the guard's. */
  private build(dataSource: DataSource, metadata: EntityMetadata, columns: ColumnMetadata[]): string {
    const { driver } = dataSource;
    const equals = (column: ColumnMetadata, index: number) => `${driver.escape(column.databaseName)} = ${driver.createParameter(column.databaseName, index)}`;
    const sets = columns.map((column, index) => equals(column, index));
    const conditions = this.where.map((property, index) => equals(columnOf(metadata, property), columns.length + index));
    if (this.guard) {
      const guardMetadata = dataSource.getMetadata(this.guard.target);
      const first = columns.length + this.where.length;
      const guardConditions = this.guard.where.map((property, index) => equals(columnOf(guardMetadata, property), first + index));
      conditions.push(`EXISTS (SELECT 1 FROM ${driver.escape(guardMetadata.tableName)} WHERE ${guardConditions.join(' AND ')})`);
    }
    return `UPDATE ${driver.escape(metadata.tableName)} SET ${sets.join(', ')} WHERE ${conditions.join(' AND ')}`;
  }

  private parameters(
    manager: EntityManager,
    statement: ColumnStatement,
    properties: (keyof T & string)[],
    where: WhereValues<T>,
    changes: Partial<T>,
    guard: WhereValues<ObjectLiteral> = {},
  ): unknown[] {
    return [
      ...persistentValues(manager.connection.driver, changes, statement, properties),
      ...this.where.map((property) => where[property]),
      ...(this.guard?.where ?? []).map((property) => guard[property]),
    ];
  }
}

type WhereValues<T> = Partial<Record<keyof T & string, unknown>>;

/** The row a guarded PreparedUpdate requires (see its constructor): its entity and the properties it must equal. */
interface ExistsGuard {
  target: EntityTarget<ObjectLiteral>;
  where: string[];
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
  private readonly statements = new ColumnStatements<T>(this.target, 16, ({ driver }, metadata, columns) => {
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
