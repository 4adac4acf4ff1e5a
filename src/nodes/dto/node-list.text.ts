import { DataSource, ObjectLiteral } from 'typeorm';
import { isoTime } from '../../common/replies/iso-time';
import { jsonString, JsonText } from '../../common/replies/json-text';
import { hydratedValue, isSqliteDatetime } from '../../database/prepared-statements';
import { PublisherDto } from '../../publishers/dto/publisher.dto';
import { CompatibilityColumns } from '../entities/compatibility-columns';
import { NodeVersionEntity } from '../entities/node-version.entity';
import { NodeEntity } from '../entities/node.entity';
import { NodeDto, NodeListDto } from './node.dto';
import { NodeVersionDto } from './node-version.dto';

// A catalog page's JSON written straight from the driver's row values. A page of 1,000 nodes is 1.4 MB of JSON;
// hydrating entities, mapping them (toNodeDto) and letting JSON.stringify walk the result took more time than the
// query (profiled: about 60% of the page). Here each column's value becomes its field's text directly, and the
// JSON text columns (simple-json: arrays, translations), which TypeORM writes with JSON.stringify, go in as stored
// instead of being parsed and serialized again. The bytes are those of JSON.stringify(toNodeDto(node)) for every
// node (test/node-list-text.e2e-spec.ts compares a page with each node's own GET on both databases), so the field
// tables below list the fields in toNodeDto's order.

/** How a column's value is written: the value is the driver's (SQLite: text, 0/1; PostgreSQL: Date, boolean). */
type FieldKind = 'text' | 'optionalText' | 'json' | 'optionalJson' | 'number' | 'boolean' | 'time';

/** A reply field: its key, the entity property whose column holds it, how it is written. */
type Field<Dto, Entity> = readonly [key: keyof Dto & string, property: keyof Entity & string, kind: FieldKind];

/** The compatibility fields nodes and versions share (CompatibilityColumns), in the same order in both replies. */
const COMPATIBILITY_FIELDS: readonly (readonly [key: keyof NodeDto & keyof NodeVersionDto, property: keyof CompatibilityColumns, kind: FieldKind])[] = [
  ['supported_os', 'supportedOs', 'json'],
  ['supported_accelerators', 'supportedAccelerators', 'json'],
  ['supported_app_version', 'supportedAppVersion', 'optionalText'],
  ['supported_app_frontend_version', 'supportedAppFrontendVersion', 'optionalText'],
  ['tags', 'tags', 'json'],
  ['tags_admin', 'tagsAdmin', 'json'],
];

const NODE_FIELDS: readonly Field<NodeDto, NodeEntity>[] = [
  ['id', 'id', 'text'],
  ['name', 'name', 'text'],
  ['description', 'description', 'optionalText'],
  ['author', 'author', 'optionalText'],
  ['category', 'category', 'optionalText'],
  ['license', 'license', 'optionalText'],
  ['icon', 'icon', 'optionalText'],
  ['banner_url', 'bannerUrl', 'optionalText'],
  ['repository', 'repository', 'optionalText'],
  ...COMPATIBILITY_FIELDS,
  ['preempted_app_node_names', 'preemptedAppNodeNames', 'json'],
  ['translations', 'translations', 'optionalJson'],
  ['status', 'status', 'text'],
  ['status_detail', 'statusDetail', 'optionalText'],
  ['search_ranking', 'searchRanking', 'number'],
  ['downloads', 'downloads', 'number'],
  ['github_stars', 'githubStars', 'number'],
  ['rating', 'rating', 'number'],
  ['created_at', 'createdAt', 'time'],
  // then `publisher` and `latest_version`
];

const VERSION_FIELDS: readonly Field<NodeVersionDto, NodeVersionEntity>[] = [
  ['id', 'id', 'text'],
  ['node_id', 'nodeId', 'text'],
  ['version', 'version', 'text'],
  ['changelog', 'changelog', 'optionalText'],
  ['dependencies', 'dependencies', 'json'],
  ['deprecated', 'deprecated', 'boolean'],
  ['downloadUrl', 'downloadUrl', 'optionalText'],
  ['status', 'status', 'text'],
  ['status_reason', 'statusReason', 'optionalText'],
  ['app_node_extract_status', 'appNodeExtractStatus', 'optionalText'],
  ...COMPATIBILITY_FIELDS,
  ['createdAt', 'createdAt', 'time'],
];

/**
 * The columns of a catalog row, in select-list order: the node's publisher
 * id, the node's reply fields, then its latest version's (NULLs when it has
 * none, from a LEFT JOIN).
 */
export const CATALOG_ROW_COLUMNS: { node: (keyof NodeEntity)[]; version: (keyof NodeVersionEntity)[] } = {
  node: ['publisherId', ...NODE_FIELDS.map(([, property]) => property)],
  version: VERSION_FIELDS.map(([, property]) => property),
};
const PUBLISHER_ID_INDEX = 0;
const NODE_ID_INDEX = 1;
const VERSION_ID_INDEX = CATALOG_ROW_COLUMNS.node.length;

/** A field ready to write: where its value is in the row, and its text (undefined when the reply leaves it out). */
interface WrittenField {
  index: number;
  /** `{"key":` for an object's first field (always present: an id), `,"key":` for the others. */
  prefix: string;
  write: (value: unknown) => string | undefined;
}

function writerOf(kind: FieldKind, toDate: (value: unknown) => unknown): (value: unknown) => string | undefined {
  switch (kind) {
    case 'text':
      return (value) => jsonString(value as string);
    case 'optionalText':
      return (value) => (value === null ? undefined : jsonString(value as string));
    case 'json':
      return (value) => (typeof value === 'string' ? value : JSON.stringify(value));
    case 'optionalJson':
      // A stored JSON null is absent too, as toNodeDto leaves a null out (CONTRACT §6).
      return (value) => (value === null || value === 'null' ? undefined : typeof value === 'string' ? value : JSON.stringify(value));
    case 'number':
      return (value) => String(value);
    case 'boolean':
      return (value) => (value ? 'true' : 'false');
    case 'time':
      // SQLite's `YYYY-MM-DD HH:MM:SS.SSS` (UTC) is its ISO text with `T` and `Z`; anything else goes through hydration.
      return (value) =>
        isSqliteDatetime(value) ? `"${value.slice(0, 10)}T${value.slice(11)}Z"` : `"${isoTime(value instanceof Date ? value : (toDate(value) as Date))}"`;
  }
}

function writtenFields<Dto, Entity extends ObjectLiteral>(
  dataSource: DataSource,
  target: new () => Entity,
  fields: readonly Field<Dto, Entity>[],
  firstIndex: number,
): WrittenField[] {
  return fields.map(([key, property, kind], position) => ({
    index: firstIndex + position,
    prefix: `${position === 0 ? '{' : ','}"${key}":`,
    write: writerOf(kind, hydratedValue(dataSource, target, property)),
  }));
}

/** The fields' object, without its closing brace (a node's goes on with its publisher and version). */
function openObject(row: unknown[], fields: WrittenField[]): string {
  let text = '';
  for (const field of fields) {
    const written = field.write(row[field.index]);
    if (written !== undefined) text += field.prefix + written;
  }
  return text;
}

interface RowWriters {
  node: WrittenField[];
  version: WrittenField[];
}

const writersBySource = new WeakMap<DataSource, RowWriters>();

function rowWriters(dataSource: DataSource): RowWriters {
  let writers = writersBySource.get(dataSource);
  if (!writers) {
    writers = {
      node: writtenFields(dataSource, NodeEntity, NODE_FIELDS, NODE_ID_INDEX),
      version: writtenFields(dataSource, NodeVersionEntity, VERSION_FIELDS, VERSION_ID_INDEX),
    };
    writersBySource.set(dataSource, writers);
  }
  return writers;
}

/** A page of catalog rows (CATALOG_ROW_COLUMNS) as read from `dataSource` (whose driver gave the values), in the page's order. */
export interface CatalogRows {
  dataSource: DataSource;
  rows: unknown[][];
}

/** The node id of a catalog row. */
export function catalogRowNodeId(row: unknown[]): string {
  return row[NODE_ID_INDEX] as string;
}

/** The node's publisher id of a catalog row. */
function catalogRowPublisherId(row: unknown[]): string {
  return row[PUBLISHER_ID_INDEX] as string;
}

/**
 * The JSON of a catalog page: `{"total","nodes","page","limit","totalPages"}`
 * with each node as toNodeDto shows it; `publishers` has every row's
 * publisher, by id.
 */
export function nodeListText(
  { total, page, limit, totalPages }: Omit<NodeListDto, 'nodes'>,
  { dataSource, rows }: CatalogRows,
  publishers: ReadonlyMap<string, PublisherDto>,
): JsonText<NodeListDto> {
  const writers = rowWriters(dataSource);
  const publisherTexts = new Map<string, string>();
  const nodes: string[] = [];
  for (const row of rows) {
    const publisherId = catalogRowPublisherId(row);
    let publisher = publisherTexts.get(publisherId);
    if (publisher === undefined) {
      const dto = publishers.get(publisherId);
      if (!dto) throw new Error(`node ${catalogRowNodeId(row)}: its publisher ${publisherId} was not loaded`);
      publisher = JSON.stringify(dto);
      publisherTexts.set(publisherId, publisher);
    }
    let node = `${openObject(row, writers.node)},"publisher":${publisher}`;
    if (row[VERSION_ID_INDEX] !== null) node += `,"latest_version":${openObject(row, writers.version)}}`;
    nodes.push(`${node}}`);
  }
  return `{"total":${total},"nodes":[${nodes.join(',')}],"page":${page},"limit":${limit},"totalPages":${totalPages}}`;
}
