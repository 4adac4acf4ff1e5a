import { DataSource, EntityMetadata, EntityTarget, ObjectLiteral } from 'typeorm';

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

/**
 * Builds an entity from one row of a hand-written query, converting each
 * value with the driver's own rules (booleans, simple-json, dates), exactly
 * as TypeORM would. Undefined when the row has no such entity (a LEFT JOIN
 * that found nothing).
 */
export function hydrate<T extends ObjectLiteral>(
  dataSource: DataSource,
  { target, alias }: JoinedEntity,
  row: Record<string, unknown>,
): T | undefined {
  const metadata: EntityMetadata = dataSource.getMetadata(target);
  const primary = metadata.primaryColumns[0];
  if (row[`${alias}_${primary.databaseName}`] === null || row[`${alias}_${primary.databaseName}`] === undefined) {
    return undefined;
  }
  const entity = metadata.create() as T;
  for (const column of metadata.columns) {
    const value: unknown = dataSource.driver.prepareHydratedValue(row[`${alias}_${column.databaseName}`], column);
    Object.assign(entity, { [column.propertyName]: value });
  }
  return entity;
}
