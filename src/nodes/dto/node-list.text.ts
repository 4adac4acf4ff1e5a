import { DataSource } from 'typeorm';
import { isoTime } from '../../common/replies/iso-time';
import { JsonText } from '../../common/replies/json-text';
import { hydratedValue, isSqliteDatetime, sqliteDatetimeIso } from '../../database/prepared-statements';
import { PublisherDto } from '../../publishers/dto/publisher.dto';
import { NodeEntity } from '../entities/node.entity';
import { NodeDto, NodeListDto } from './node.dto';

// A catalog page's JSON, put together from the reply text its rows carry (see the reply-text migration): a node's
// reply from its opening brace to `github_stars` (`nodes.reply_head`) and its latest version's whole reply
// (`node_versions.reply_json`, copied into the node's row on SQLite: see the latest-version-reply migration), which
// triggers keep in step with the columns they show. What the rows cannot carry
// is written here: the rating (the databases' text for a fraction is not JavaScript's), the creation time, and the
// publisher (read once per page, as a publisher's change would otherwise rewrite all its nodes). A page of 1,000
// then reads 6 values per node instead of 42; that hand-over and writing each value as JSON had been most of the
// page's time. The bytes are those of JSON.stringify(toNodeDto(node)) for every node: test/node-list-text.e2e-spec.ts
// compares a page with each node's own GET on both databases.

/**
 * The node columns of a catalog row, in select-list order; then its latest
 * version's `reply_json` (NULL when it has none, and '' when it has one
 * without the text). A row of a whole-catalog page adds the listed count
 * after it.
 */
export const CATALOG_ROW_NODE_COLUMNS = ['id', 'publisher_id', 'reply_head', 'rating', 'created_at'] as const;
const NODE_ID = 0;
const PUBLISHER_ID = 1;
const REPLY_HEAD = 2;
const RATING = 3;
const CREATED_AT = 4;
const VERSION_REPLY = 5;

/** The node reply's keys written here, after its head, in toNodeDto's order. */
const TAIL_KEYS = ['rating', 'created_at', 'publisher', 'latest_version'] as const satisfies readonly (keyof NodeDto)[];
const [RATING_PREFIX, CREATED_AT_PREFIX, PUBLISHER_PREFIX, LATEST_VERSION_PREFIX] = TAIL_KEYS.map((key) => `,"${key}":`);

/** A page of catalog rows (CATALOG_ROW_COLUMNS) as read from `dataSource` (whose driver gave the values), in the page's order. */
export interface CatalogRows {
  dataSource: DataSource;
  rows: unknown[][];
}

/** The node id of a catalog row. */
export function catalogRowNodeId(row: unknown[]): string {
  return row[NODE_ID] as string;
}

/** The publisher id of a catalog row. */
export function catalogRowPublisherId(row: unknown[]): string {
  return row[PUBLISHER_ID] as string;
}

/** A creation time as the driver gives it (SQLite: `YYYY-MM-DD HH:MM:SS.SSS` text; PostgreSQL: a Date), as JSON. */
function createdAtText(dataSource: DataSource): (value: unknown) => string {
  const toDate = hydratedValue(dataSource, NodeEntity, 'createdAt');
  return (value) =>
    `"${isSqliteDatetime(value) ? sqliteDatetimeIso(value) : isoTime(value instanceof Date ? value : (toDate(value) as Date))}"`;
}

const createdAtBySource = new WeakMap<DataSource, (value: unknown) => string>();

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
  let createdAt = createdAtBySource.get(dataSource);
  if (!createdAt) {
    createdAt = createdAtText(dataSource);
    createdAtBySource.set(dataSource, createdAt);
  }
  const publisherTexts = new Map<string, string>();
  const nodes: string[] = [];
  for (const row of rows) {
    const head = row[REPLY_HEAD];
    // The triggers write the texts with their rows; a row without one was written around them.
    if (typeof head !== 'string') throw new Error(`node ${catalogRowNodeId(row)} has no reply text`);
    const publisherId = catalogRowPublisherId(row);
    let publisher = publisherTexts.get(publisherId);
    if (publisher === undefined) {
      const dto = publishers.get(publisherId);
      if (!dto) throw new Error(`node ${catalogRowNodeId(row)}: its publisher ${publisherId} was not loaded`);
      publisher = JSON.stringify(dto);
      publisherTexts.set(publisherId, publisher);
    }
    const version = row[VERSION_REPLY];
    if (version === '') throw new Error(`node ${catalogRowNodeId(row)}: its latest version has no reply text`);
    nodes.push(
      head +
        RATING_PREFIX +
        String(row[RATING]) +
        CREATED_AT_PREFIX +
        createdAt(row[CREATED_AT]) +
        PUBLISHER_PREFIX +
        publisher +
        (typeof version === 'string' ? LATEST_VERSION_PREFIX + version : '') +
        '}',
    );
  }
  return `{"total":${total},"nodes":[${nodes.join(',')}],"page":${page},"limit":${limit},"totalPages":${totalPages}}`;
}
