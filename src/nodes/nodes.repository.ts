import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, FindOneOptions, In, Not, ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { JoinedEntity, PreparedFindOne, PreparedRows, PreparedSelect, PreparedUpdate, SelectedRow, sqliteInTransaction } from '../database/prepared-statements';
import { PublisherRole } from '../publishers/entities/publisher-member.entity';
import { memberRoleJoin, memberRoleOf } from '../publishers/publishers.repository';
import { PublisherEntity } from '../publishers/entities/publisher.entity';
import { CATALOG_ROW_NODE_COLUMNS, catalogRowNodeId, catalogRowPublisherId, CatalogRows } from './dto/node-list.text';
import { NodeVersionEntity, NodeVersionStatus } from './entities/node-version.entity';
import { NodeEntity } from './entities/node.entity';
import { KeptSearch, KeptSearches } from './kept-searches';
import { containsPattern, searchCondition, searchIndexQuery } from './search-sql';

export interface NodeListFilter {
  search?: string;
  /** Only nodes changed (the row or any version) after this instant. */
  changedAfter?: Date;
  offset: number;
  limit: number;
}

/** A page's catalog rows (see nodeListText) and how many nodes its filter selects. */
interface RowsPage {
  rows: unknown[][];
  total: number;
}

/** A page of the catalog: its rows (see nodeListText), their publishers, and how many nodes the filter selects. */
export interface CatalogPage {
  rows: CatalogRows;
  publishers: PublisherEntity[];
  total: number;
}

const DISPLAY_NODE: JoinedEntity = { target: NodeEntity, alias: 'n' };
const DISPLAY_PUBLISHER: JoinedEntity = { target: PublisherEntity, alias: 'p' };
const DISPLAY_VERSION: JoinedEntity = { target: NodeVersionEntity, alias: 'v' };
const DISPLAY_ENTITIES = [DISPLAY_NODE, DISPLAY_PUBLISHER, DISPLAY_VERSION];
/** A version a request writes, by id or number (see findNodeVersionWithRole). */
const WRITTEN_VERSION: JoinedEntity = { target: NodeVersionEntity, alias: 'wv' };
/** What a version write reads of the version's node: what its checks, its lock and its guarded update use. */
const VERSION_WRITE_NODE_PROPERTIES = ['id', 'normalizedId', 'publisherId', 'status'] as const;
export type VersionWriteNode = Pick<NodeEntity, (typeof VERSION_WRITE_NODE_PROPERTIES)[number]>;
/** Four of a node row's 27 columns: the driver's and the hydration's work grow with the columns read. */
const VERSION_WRITE_NODE: JoinedEntity = { target: NodeEntity, alias: 'n', properties: VERSION_WRITE_NODE_PROPERTIES };

/** The one-row table of the listed count, kept by triggers (migration 1764500000000). */
const CATALOG_COUNTS = 'catalog_counts';
/** What is kept of searches (see KeptSearches): terms, ids in all, and ids of one search (past that, its total only). */
const SEARCHES_KEPT = { terms: 1000, ids: 200_000 };
const SEARCH_IDS_KEPT = 20_000;
/**
 * How many catalog index entries a search page may walk per match (see pageOfMatches), against finding and sorting
 * every match: testing an entry against a set costs a fraction of reading and rechecking a match.
 */
const WALK_PER_MATCH = 3;
/** Backward walks tried while nodes are listed or unlisted under them, before walking forward (exact whatever happens). */
const BACKWARD_ATTEMPTS = 3;

/** `"alias"."column"`, escaped for the data source's driver. */
function qualifiedColumn({ driver }: DataSource): (alias: string, name: string) => string {
  return (alias, name) => `${driver.escape(alias)}.${driver.escape(name)}`;
}

/** The listing's order (CONTRACT §3). */
function inListingOrder<T extends ObjectLiteral>(query: SelectQueryBuilder<T>): SelectQueryBuilder<T> {
  return query.orderBy('node.searchRanking', 'DESC').addOrderBy('node.downloads', 'DESC').addOrderBy('node.id', 'ASC');
}

/** Data access for the node aggregate: nodes and their versions. */
@Injectable()
export class NodesRepository {
  private readonly displayQuery = new PreparedSelect(DISPLAY_ENTITIES, (dataSource, selectList) => this.buildDisplayQuery(dataSource, selectList, false));
  private readonly displayWithRoleQuery = new PreparedSelect(DISPLAY_ENTITIES, (dataSource, selectList) =>
    this.buildDisplayQuery(dataSource, selectList, true),
  );
  /**
   * A node (its own row only), the user's role in its publisher and one of
   * its versions by id or number; parameters in the order they appear
   * (SQLite's are positional): the user, the version twice, the node.
   */
  private readonly nodeVersionWithRoleQuery = new PreparedSelect([VERSION_WRITE_NODE, WRITTEN_VERSION], (dataSource, selectList) => {
    const { driver } = dataSource;
    const column = qualifiedColumn(dataSource);
    const node = VERSION_WRITE_NODE.alias;
    const role = memberRoleJoin(driver, column(node, 'publisher_id'));
    const version = WRITTEN_VERSION.alias;
    return (
      `SELECT ${selectList}, ${role.select} FROM ${driver.escape('nodes')} ${driver.escape(node)}${role.join}` +
      ` LEFT JOIN ${driver.escape('node_versions')} ${driver.escape(version)} ON ${column(version, 'node_id')} = ${column(node, 'id')}` +
      ` AND (${column(version, 'id')} = ${driver.createParameter('versionId', 1)} OR ${column(version, 'version')} = ${driver.createParameter('version', 2)})` +
      ` WHERE ${column(node, 'normalized_id')} = ${driver.createParameter('node', 3)} LIMIT 1`
    );
  });
  /**
   * A page's rows, by id (one parameter holding the list, see byIdList): the
   * reply text they carry and the few values written per page (see
   * nodeListText). The publisher is read once per page, not joined into
   * every row.
   */
  private readonly catalogRowsQuery = new PreparedRows((dataSource) => {
    const { driver } = dataSource;
    const row = catalogRowSql(dataSource);
    const column = qualifiedColumn(dataSource);
    return `SELECT ${row.select} FROM ${driver.escape('nodes')} ${driver.escape('n')}${row.versionJoin} WHERE ${byIdList(dataSource, column, driver.createParameter('nodes', 0))}`;
  });
  /**
   * The whole catalog's pages, walked forward and backward (see catalogPage),
   * and its listed count: the package manager's crawl runs them on every
   * page, so their SQL is fixed (prepared once per connection on
   * PostgreSQL) rather than built by the query builder per request.
   */
  private readonly forwardPage = new PreparedRows((dataSource) => catalogPageSql(dataSource, false));
  private readonly backwardPage = new PreparedRows((dataSource) => catalogPageSql(dataSource, true));
  /** The catalog walk's ids alone, forward (see pageOfMatches). */
  private readonly idWalk = new PreparedRows((dataSource) => catalogWalkSql(dataSource, qualifiedColumn(dataSource)('n', 'id'), false));
  private readonly listedCountQuery = new PreparedRows((dataSource) => `SELECT ${listedCountSql(dataSource)}`);
  /** What searches can match changes only with this (see the search-generation migration). */
  private readonly searchGenerationQuery = new PreparedRows(
    ({ driver }) => `SELECT ${driver.escape('search_generation')} FROM ${driver.escape(CATALOG_COUNTS)}`,
  );
  private readonly keptSearches = new KeptSearches(SEARCHES_KEPT);
  /** The listed count as this instance last read it: where a catalog page is first placed (see catalogPage). */
  private lastListed: number | undefined;
  /**
   * Publishers by id (one list parameter, see byIdList): those of a page's
   * rows, which name a handful at most. Looking them up through the page's
   * node ids instead read every node row a second time.
   */
  private readonly publishersById = new PreparedSelect([DISPLAY_PUBLISHER], (dataSource, selectList) => {
    const { driver } = dataSource;
    const column = qualifiedColumn(dataSource);
    const alias = DISPLAY_PUBLISHER.alias;
    return `SELECT ${selectList} FROM ${driver.escape('publishers')} ${driver.escape(alias)} WHERE ${byIdList(dataSource, column, driver.createParameter('ids', 0), alias)}`;
  });
  private readonly nodeByNormalizedId = new PreparedFindOne(NodeEntity, [['normalizedId']]);
  private readonly versionByIdOrNumber = new PreparedFindOne(NodeVersionEntity, [
    ['nodeId', 'id'],
    ['nodeId', 'version'],
  ]);
  private readonly nodeUpdate = new PreparedUpdate(NodeEntity, ['id']);
  private readonly versionUpdate = new PreparedUpdate(NodeVersionEntity, ['id']);
  /** Updates guarded by the status the writer checked (see updateNodeIfStatus). */
  private readonly guardedNodeUpdate = new PreparedUpdate(NodeEntity, ['id', 'status']);
  /** A version's update guarded by its own status and its node's, as the writer checked them (see updateVersionIfStatus). */
  private readonly guardedVersionUpdate = new PreparedUpdate(NodeVersionEntity, ['id', 'status'], {
    target: NodeEntity,
    where: ['id', 'status'],
  });

  constructor(private readonly dataSource: DataSource) {}

  findNode(normalizedId: string, manager: EntityManager = this.dataSource.manager): Promise<NodeEntity | null> {
    return this.nodeByNormalizedId.run(manager, { normalizedId });
  }

  /**
   * The node with its publisher and latest version, in one query. Every read
   * runs it, and a write that answers with the node runs it under `lock`
   * (from TransactionRunner.lockForUpdate), so the reply needs no read after
   * commit. Its SQL is built once rather than by the query builder per
   * request; rows are hydrated with the driver's own conversions.
   */
  async findNodeForDisplay(
    normalizedId: string,
    manager: EntityManager = this.dataSource.manager,
    { lock }: Pick<FindOneOptions, 'lock'> = {},
  ): Promise<NodeEntity | null> {
    await this.lockNodeRow(manager, normalizedId, lock);
    const row = await this.displayQuery.first(manager, [normalizedId]);
    return row ? this.hydrateDisplayRow(row) : null;
  }

  /**
   * The display query, locked as above, plus the user's role in the node's
   * publisher (null when not a member): what a write to a publisher's node
   * reads before it changes anything.
   */
  async findNodeWithRole(
    manager: EntityManager,
    normalizedId: string,
    userId: string,
    { lock }: Pick<FindOneOptions, 'lock'> = {},
  ): Promise<{ node: NodeEntity; role: PublisherRole | null } | null> {
    await this.lockNodeRow(manager, normalizedId, lock);
    const row = await this.displayWithRoleQuery.first(manager, [userId, normalizedId]);
    const node = row && this.hydrateDisplayRow(row);
    return row && node ? { node, role: memberRoleOf(row) } : null;
  }

  /**
   * What a version write reads before it changes anything, in one statement:
   * what it uses of the node's own row (VersionWriteNode), the user's role in its publisher (null when not a
   * member), and the version by id or number (null when the node has none
   * such). Unlocked: the write guards its statement with what it read.
   */
  async findNodeVersionWithRole(
    manager: EntityManager,
    normalizedId: string,
    userId: string,
    idOrVersion: string,
  ): Promise<{ node: VersionWriteNode; role: PublisherRole | null; version: NodeVersionEntity | null } | null> {
    const row = await this.nodeVersionWithRoleQuery.first(manager, [userId, idOrVersion, idOrVersion, normalizedId]);
    const node = row?.entity<VersionWriteNode>(VERSION_WRITE_NODE);
    return row && node ? { node, role: memberRoleOf(row), version: row.entity<NodeVersionEntity>(WRITTEN_VERSION) ?? null } : null;
  }

  /**
   * A page of the catalog and its size. The page's nodes come first, from an
   * index walk (the partial catalog index, in the listing's own order), and
   * only their rows are read (for the whole catalog by the walk's own
   * statement, see catalogPageSql), so a deep page costs an index walk, not
   * the rows before it.
   */
  async listActiveNodes(filter: NodeListFilter): Promise<CatalogPage> {
    const { rows, total } = filter.search || filter.changedAfter ? await this.filteredPage(filter) : await this.catalogPage(filter);
    const publisherIds = [...new Set(rows.map(catalogRowPublisherId))];
    const publisherRows = publisherIds.length > 0 ? await this.publishersById.all(this.dataSource.manager, [idListParameter(this.dataSource, publisherIds)]) : [];
    const publishers = publisherRows.flatMap((row) => row.entity<PublisherEntity>(DISPLAY_PUBLISHER) ?? []);
    return { rows: { dataSource: this.dataSource, rows }, publishers, total };
  }

  /** The catalog rows of `ids`, in that order (an id whose row is gone is left out). */
  private async catalogRowsById(ids: string[]): Promise<unknown[][]> {
    if (ids.length === 0) return [];
    const found = await this.catalogRowsQuery.all(this.dataSource.manager, [idListParameter(this.dataSource, ids)]);
    const byId = new Map(found.map((row) => [catalogRowNodeId(row), row]));
    return ids.map((id) => byId.get(id)).filter((row): row is unknown[] => row !== undefined);
  }

  /**
   * A page of the whole catalog. Its size is the count the triggers keep in
   * `catalog_counts` (nothing is counted), read again by the page's own
   * statement, so the page and its total come from one snapshot. A page past
   * the middle is walked from the end (the same index, read backwards), so
   * the last page costs what the first does and the middle one walks
   * furthest. Where a backward page starts depends on the size: when its
   * statement saw another size than the one it was placed by (a node listed
   * or unlisted in between), it is placed and walked again. The size a
   * page is first placed by is the last one this instance saw: only the
   * choice of direction rests on it (a forward walk needs no size), so a
   * page costs one statement, not a count read first.
   */
  private async catalogPage({ offset, limit }: NodeListFilter): Promise<RowsPage> {
    let listed = this.lastListed ?? (await this.listedCount());
    for (let attempt = 0; attempt < BACKWARD_ATTEMPTS && offset < listed && 2 * offset + limit > listed; attempt++) {
      const fromEnd = listed - offset;
      const page = await this.pageWithListedCount(Math.max(0, fromEnd - limit), Math.min(limit, fromEnd), true);
      if (page.listed === listed) return { rows: page.rows.reverse(), total: listed };
      listed = page.listed ?? (await this.listedCount());
    }
    const page = await this.pageWithListedCount(offset, limit, false);
    return { rows: page.rows, total: page.listed ?? (await this.listedCount()) };
  }

  /**
   * The catalog rows of the listed nodes from `offset` in the listing's order (or its exact reverse), with the
   * listed count as the same statement saw it (each row's last value; see catalogPageSql).
   */
  private async pageWithListedCount(offset: number, limit: number, backward: boolean): Promise<{ rows: unknown[][]; listed?: number }> {
    const rows = await (backward ? this.backwardPage : this.forwardPage).all(this.dataSource.manager, [limit, offset]);
    if (rows.length === 0) return { rows };
    this.lastListed = Number(rows[0][rows[0].length - 1]);
    return { rows, listed: this.lastListed };
  }

  /** How many nodes are listed, as the triggers keep it (see the catalog-count migration). */
  private async listedCount(): Promise<number> {
    const [row] = await this.listedCountQuery.all(this.dataSource.manager, []);
    this.lastListed = Number(row?.[0] ?? 0);
    return this.lastListed;
  }

  /**
   * A page of a search or a sync: counted (a search's matches are usually
   * kept, see keptSearch), then found in the listing's order: among kept
   * matches by walking the catalog index (see pageOfMatches) where that
   * reads at most WALK_PER_MATCH entries per match; otherwise by the filter.
   * Its rows are then read by id.
   */
  private async filteredPage(filter: NodeListFilter): Promise<RowsPage> {
    const [ids, total] = await this.filteredIds(filter);
    return { rows: await this.catalogRowsById(ids), total };
  }

  /** The ids of a search's or a sync's page (see filteredPage), and how many nodes match. */
  private async filteredIds(filter: NodeListFilter): Promise<[string[], number]> {
    const kept = await this.keptSearch(filter);
    const matches = kept?.total ?? (await this.count(filter));
    if (filter.offset >= matches) return [[], matches];
    if (kept?.ids) {
      const walked = await this.walkedPerPage(filter, matches);
      const page = walked <= WALK_PER_MATCH * matches ? await this.pageOfMatches(kept.ids, walked, filter) : undefined;
      if (page) return [page, matches];
    }
    const page = await inListingOrder(this.catalogQuery(filter, await this.searchIndexPays(filter, matches)))
      .select('node.id', 'id')
      .offset(filter.offset)
      .limit(filter.limit)
      .getRawMany<{ id: string }>();
    return [page.map(({ id }) => id), matches];
  }

  /**
   * About how many catalog index entries a walk in the listing's order reads
   * to reach the end of a page of `matches` spread evenly: (offset + limit) ×
   * listed ÷ matches, with the listed count this instance last read (only
   * the plan rests on it, not the answer).
   */
  private async walkedPerPage({ offset, limit }: NodeListFilter, matches: number): Promise<number> {
    return Math.ceil(((offset + limit) * (this.lastListed ?? (await this.listedCount()))) / matches);
  }

  /** How many listed nodes a filter selects, exactly. */
  private async count(filter: NodeListFilter): Promise<number> {
    const row = await this.catalogQuery(filter).select('COUNT(*)', 'total').getRawOne<{ total: string | number }>();
    return Number(row?.total ?? 0);
  }

  /**
   * What a search matches, read once per search generation (the frontend's
   * searches repeat, typed by many users alike): the matches' ids (up to
   * SEARCH_IDS_KEPT, past that only their count), where the generation is
   * one row. A common term has 5,000 matches at 50,000 nodes, and finding
   * them reads and rechecks each; with them known, a page is the catalog
   * index walked in order, each entry tested against a set instead of by
   * four LIKEs (see pageOfMatches). The order is never kept: downloads
   * change it all the time without changing what matches. Undefined for a
   * sync (narrow already, counted each time).
   */
  private async keptSearch(filter: NodeListFilter): Promise<KeptSearch | undefined> {
    // Keyed by the term as given: SQLite's trigram table folds case its own way beyond ASCII, so two spellings
    // one lower-cased key joins can find different rows. Not while a SQLite transaction is open: its one
    // connection would show this read the transaction's uncommitted rows, and a generation it raised but
    // rolled back can be raised again by the next change, pairing matches with rows that never were.
    if (!filter.search || filter.changedAfter || sqliteInTransaction(this.dataSource)) return undefined;
    const term = filter.search;
    // Read before the matches: a write committed in between is then in them, or raises the generation past them.
    const [[generation]] = await this.searchGenerationQuery.all(this.dataSource.manager, []);
    const kept = this.keptSearches.get(term, String(generation));
    if (kept) return kept;
    const rows = await this.catalogQuery(filter).select('node.id', 'id').limit(SEARCH_IDS_KEPT + 1).getRawMany<{ id: string }>();
    const search: KeptSearch =
      rows.length <= SEARCH_IDS_KEPT ? { total: rows.length, ids: new Set(rows.map(({ id }) => id)) } : { total: await this.count(filter) };
    // A SQLite transaction begun while these reads waited showed them its uncommitted rows: used, not kept.
    if (!sqliteInTransaction(this.dataSource)) this.keptSearches.set(term, String(generation), search);
    return search;
  }

  /**
   * A page of a search whose matches are known, in the listing's order: the
   * catalog index walked from its start by one statement, a quarter more
   * than the `walked` estimate, keeping the matches. Undefined when that was
   * too few (matches spread unevenly): the caller then finds the page by the
   * filter. One statement, so the page comes from one snapshot of the order,
   * which downloads change all the time.
   */
  private async pageOfMatches(ids: ReadonlySet<string>, walked: number, { offset, limit }: NodeListFilter): Promise<string[] | undefined> {
    const batch = Math.max(limit, Math.ceil(walked * 1.25));
    const rows = await this.idWalk.all(this.dataSource.manager, [batch, 0]);
    const page: string[] = [];
    let skipped = 0;
    for (const [id] of rows) {
      if (!ids.has(id as string)) continue;
      if (skipped < offset) skipped += 1;
      else if (page.push(id as string) === limit) return page;
    }
    // The walk reached the catalog's end: the page is whatever it kept.
    return rows.length < batch ? page : undefined;
  }

  /**
   * Whether SQLite should find a search's page through the trigram table.
   * Its planner takes the table whenever the query names it, then reads and
   * sorts every match; walking the catalog index in order and testing each
   * row stops at the page's end instead, which is sooner when matches are
   * dense: the walk reads about walkedPerPage rows, the trigram table all
   * the matches, as the exact count just taken has them. (PostgreSQL's
   * planner makes this choice itself, from its statistics.) Where a
   * search's matches are kept, this path finds only the pages that walking
   * against them would not (see filteredPage).
   */
  private async searchIndexPays(filter: NodeListFilter, matches: number): Promise<boolean> {
    if (this.dataSource.options.type === 'postgres' || filter.changedAfter) return true;
    return (await this.walkedPerPage(filter, matches)) >= matches;
  }

  /**
   * The listed nodes a filter selects. The status is a literal so both planners can use the partial catalog index.
   * `useSearchIndex: false` leaves SQLite's trigram table out (see searchIndexPays); the LIKEs decide alone.
   */
  private catalogQuery(filter: NodeListFilter, useSearchIndex = true) {
    const query = this.dataSource.manager.createQueryBuilder(NodeEntity, 'node').where(`node.status = 'NodeStatusActive'`);
    if (filter.search) {
      const sqlite = this.dataSource.options.type !== 'postgres';
      query.andWhere(searchCondition(filter.search, sqlite, 'node'), { pattern: containsPattern(filter.search) });
      // On SQLite the trigram table narrows the rows first (PostgreSQL's planner uses its trigram indexes for the
      // LIKEs themselves). Trigrams need three characters; shorter terms scan, as the contract allows.
      const phrases = useSearchIndex && sqlite ? searchIndexQuery(filter.search) : undefined;
      if (phrases) query.andWhere(`node.rowid IN (SELECT rowid FROM nodes_search WHERE nodes_search MATCH :phrases)`, { phrases });
    }
    if (filter.changedAfter) {
      // Changed: the node's own row or any of its versions (CONTRACT §6), each found from its `updated_at` index,
      // so a sync costs what changed. SQLite would rather walk the catalog index (no sort) and test every row:
      // naming the changed rows by rowid makes it start from the changes. UNION ALL: IN ignores duplicates, and
      // SQLite plans a UNION as a merge in rowid order, which scans the whole node table for it.
      query.andWhere(
        this.dataSource.options.type === 'postgres'
          ? `node.id IN (SELECT id FROM nodes WHERE updated_at > :changedAfter
              UNION ALL SELECT node_id FROM node_versions WHERE updated_at > :changedAfter)`
          : `node.rowid IN (SELECT rowid FROM nodes WHERE updated_at > :changedAfter
              UNION ALL SELECT changed.rowid FROM node_versions version JOIN nodes changed ON changed.id = version.node_id
              WHERE version.updated_at > :changedAfter)`,
        { changedAfter: filter.changedAfter },
      );
    }
    return query;
  }

  /** A new node. INSERT, not save(): save() would update a node that a concurrent request created first. */
  async insertNode(manager: EntityManager, node: NodeEntity): Promise<void> {
    await manager.insert(NodeEntity, node as unknown as Record<string, unknown>);
  }

  /** Sets the given columns (one UPDATE; save() would SELECT the row first). */
  updateNode(manager: EntityManager, nodeId: string, changes: Partial<NodeEntity>): Promise<void> {
    return this.nodeUpdate.run(manager, { id: nodeId }, changes);
  }

  /**
   * Sets the given columns if the node's status is still the one the caller
   * read and checked; returns the row as written, or null when the status
   * changed in between (nothing written).
   */
  updateNodeIfStatus(manager: EntityManager, node: Pick<NodeEntity, 'id' | 'status'>, changes: Partial<NodeEntity>): Promise<NodeEntity | null> {
    return this.guardedNodeUpdate.runReturning(manager, { id: node.id, status: node.status }, changes);
  }

  /**
   * A version's changes, with its own change time (`updated_at`, which a
   * sync with `timestamp` reads, CONTRACT §6), if the version's status and
   * its node's are still those the caller read and checked: one statement
   * that writes only the version's row. The version as written, or null when
   * either status changed in between (nothing written).
   */
  updateVersionIfStatus(
    manager: EntityManager,
    node: Pick<NodeEntity, 'id' | 'status'>,
    version: Pick<NodeVersionEntity, 'id' | 'status'>,
    changes: Partial<NodeVersionEntity>,
    changedAt: Date,
  ): Promise<NodeVersionEntity | null> {
    return this.guardedVersionUpdate.runReturning(
      manager,
      { id: version.id, status: version.status },
      { ...changes, updatedAt: changedAt },
      { id: node.id, status: node.status },
    );
  }

  /** A version of the node by its id or by its semantic version string. */
  findVersion(manager: EntityManager, nodeId: string, idOrVersion: string): Promise<NodeVersionEntity | null> {
    return this.versionByIdOrNumber.run(manager, { nodeId, id: idOrVersion, version: idOrVersion });
  }

  /**
   * A version by id, read after locking its node's row: every write that
   * moves a version's status or archive takes that lock first, so what the
   * version read shows of those is current (a changelog edit takes no node
   * lock, see NodesService.updateVersion).
   */
  async lockVersionWithNode(
    manager: EntityManager,
    versionId: string,
    { lock }: Pick<FindOneOptions, 'lock'>,
  ): Promise<NodeVersionEntity | null> {
    const version = await manager.findOneBy(NodeVersionEntity, { id: versionId });
    if (!version || !lock) return version;
    await manager.findOne(NodeEntity, { where: { id: version.nodeId }, lock });
    return manager.findOneBy(NodeVersionEntity, { id: versionId });
  }

  /** findVersion outside any transaction, for public reads. */
  readVersion(nodeId: string, idOrVersion: string): Promise<NodeVersionEntity | null> {
    return this.findVersion(this.dataSource.manager, nodeId, idOrVersion);
  }

  findVersionByNumber(manager: EntityManager, nodeId: string, version: string): Promise<NodeVersionEntity | null> {
    return manager.findOne(NodeVersionEntity, { where: { nodeId, version } });
  }

  /** Every version the latest-version rule has to consider (it needs only these columns). */
  versionCandidates(manager: EntityManager, nodeId: string) {
    return manager.find(NodeVersionEntity, {
      where: { nodeId },
      select: { id: true, version: true, status: true, deprecated: true },
    });
  }

  /** The node's versions with one of `statuses`, or every version but deleted ones. */
  listVersions(nodeId: string, statuses?: NodeVersionStatus[]): Promise<NodeVersionEntity[]> {
    return this.dataSource.manager.find(NodeVersionEntity, {
      where: { nodeId, status: statuses ? In(statuses) : Not('NodeVersionStatusDeleted') },
    });
  }

  /** Adds each node's count to its downloads, one atomic increment per node (no read-modify-write). */
  async addDownloads(manager: EntityManager, counts: ReadonlyMap<string, number>): Promise<void> {
    for (const [nodeId, count] of counts) {
      await manager.increment(NodeEntity, { id: nodeId }, 'downloads', count);
    }
  }

  async insertVersion(manager: EntityManager, version: NodeVersionEntity): Promise<NodeVersionEntity> {
    await manager.insert(NodeVersionEntity, version);
    return version;
  }

  updateVersion(manager: EntityManager, versionId: string, changes: Partial<NodeVersionEntity>): Promise<void> {
    return this.versionUpdate.run(manager, { id: versionId }, changes);
  }

  /**
   * Locks the node row first, in a statement of its own, so that the display
   * query after it reads everything committed before the lock was granted. A
   * locking join would not: PostgreSQL (READ COMMITTED) re-reads only the
   * locked row after a wait, and the joined version and publisher rows would
   * be those of before it, e.g. a latest version a concurrent version write
   * just replaced. SQLite serialises writers and takes no row locks. Writes
   * take it too before a statement that must see every change committed to
   * the node's rows (a rating recomputed from its reviews).
   */
  async lockNodeRow(manager: EntityManager, normalizedId: string, lock: FindOneOptions['lock']): Promise<void> {
    if (lock) {
      await this.nodeByNormalizedId.run(manager, { normalizedId }, { lock });
    }
  }

  private hydrateDisplayRow(row: SelectedRow): NodeEntity | null {
    const node = row.entity<NodeEntity>(DISPLAY_NODE);
    if (!node) return null;
    node.publisher = row.entity<PublisherEntity>(DISPLAY_PUBLISHER);
    node.latestVersion = row.entity<NodeVersionEntity>(DISPLAY_VERSION) ?? null;
    return node;
  }

  /** Parameters in the order they appear (SQLite's are positional): the user, then the node. */
  private buildDisplayQuery(dataSource: DataSource, selectList: string, withRole: boolean): string {
    const { driver } = dataSource;
    const escape = (name: string) => driver.escape(name);
    const column = qualifiedColumn(dataSource);
    const role = withRole ? memberRoleJoin(driver, column('n', 'publisher_id')) : undefined;
    const sql =
      `SELECT ${selectList}${role ? `, ${role.select}` : ''}` +
      ` FROM ${escape('nodes')} ${escape('n')}` +
      ` INNER JOIN ${escape('publishers')} ${escape('p')} ON ${column('p', 'id')} = ${column('n', 'publisher_id')}` +
      ` LEFT JOIN ${escape('node_versions')} ${escape('v')} ON ${column('v', 'id')} = ${column('n', 'latest_version_id')}` +
      (role?.join ?? '');
    return `${sql} WHERE ${column('n', 'normalized_id')} = ${driver.createParameter('node', withRole ? 1 : 0)}`;
  }
}

/**
 * Any of a list of node ids, as ONE parameter (idListParameter), so the
 * statement is the same for every page and stays prepared: an array on
 * PostgreSQL, a JSON array on SQLite.
 */
function byIdList(dataSource: DataSource, column: (alias: string, name: string) => string, parameter: string, alias = 'n'): string {
  return dataSource.options.type === 'postgres'
    ? `${column(alias, 'id')} = ANY(${parameter}::varchar[])`
    : `${column(alias, 'id')} IN (SELECT value FROM json_each(${parameter}))`;
}

/** `(SELECT listed FROM catalog_counts)`: the listed count the triggers keep. */
function listedCountSql(dataSource: DataSource): string {
  const escape = (name: string) => dataSource.driver.escape(name);
  return `(SELECT ${escape('listed')} FROM ${escape(CATALOG_COUNTS)})`;
}

/**
 * A catalog row's select list (see nodeListText), over the node's row `n`
 * and what joins it (versionJoin).
 * The latest version's text is '' when the version lacks it (nodeListText
 * refuses such a row) and NULL when the node has no latest version. On
 * SQLite the node's row carries it (the latest-version-reply migration);
 * PostgreSQL joins the version.
 */
function catalogRowSql(dataSource: DataSource): { select: string; versionJoin: string } {
  const { driver } = dataSource;
  const column = qualifiedColumn(dataSource);
  const nodeColumns = CATALOG_ROW_NODE_COLUMNS.map((name) => column('n', name)).join(', ');
  const latest = (reply: string, versionId: string) => `COALESCE(${reply}, CASE WHEN ${versionId} IS NOT NULL THEN '' END)`;
  if (dataSource.options.type !== 'postgres') {
    return { select: `${nodeColumns}, ${latest(column('n', 'latest_version_reply'), column('n', 'latest_version_id'))}`, versionJoin: '' };
  }
  return {
    select: `${nodeColumns}, ${latest(column('v', 'reply_json'), column('v', 'id'))}`,
    versionJoin: ` LEFT JOIN ${driver.escape('node_versions')} ${driver.escape('v')} ON ${column('v', 'id')} = ${column('n', 'latest_version_id')}`,
  };
}

/**
 * The listed nodes' `selected` in the listing's order (CONTRACT §3) or its
 * exact reverse, from an offset (parameters: limit, offset). The status is a
 * literal, so both planners walk the partial catalog index, which is in
 * exactly this order.
 */
function catalogWalkSql(dataSource: DataSource, selected: string, backward: boolean): string {
  const { driver } = dataSource;
  const column = qualifiedColumn(dataSource);
  const [first, second] = backward ? ['ASC', 'DESC'] : ['DESC', 'ASC'];
  return (
    `SELECT ${selected} FROM ${driver.escape('nodes')} ${driver.escape('n')}` +
    ` WHERE ${column('n', 'status')} = 'NodeStatusActive'` +
    ` ORDER BY ${column('n', 'search_ranking')} ${first}, ${column('n', 'downloads')} ${first}, ${column('n', 'id')} ${second}` +
    ` LIMIT ${driver.createParameter('limit', 0)} OFFSET ${driver.createParameter('offset', 1)}`
  );
}

/**
 * A page of the catalog walk (catalogWalkSql) as catalog rows
 * (catalogRowSql), each with the listed count as this statement saw it,
 * last. A row is read only once the walk is past the offset. SQLite does
 * that itself (a deferred seek: EXPLAIN shows the offset's IfPos before any
 * Column of the table); PostgreSQL would read every skipped row too, so its
 * walk is an index-only scan of ids, whose rows the same statement then
 * reads by id, in the walk's order.
 */
function catalogPageSql(dataSource: DataSource, backward: boolean): string {
  const { driver } = dataSource;
  const column = qualifiedColumn(dataSource);
  const row = catalogRowSql(dataSource);
  if (dataSource.options.type !== 'postgres') return catalogWalkSql(dataSource, `${row.select}, ${listedCountSql(dataSource)}`, backward);
  return (
    `SELECT ${row.select}, ${listedCountSql(dataSource)}` +
    ` FROM unnest(ARRAY(${catalogWalkSql(dataSource, column('n', 'id'), backward)})) WITH ORDINALITY ${driver.escape('w')}(${driver.escape('id')}, ${driver.escape('position')})` +
    ` JOIN ${driver.escape('nodes')} ${driver.escape('n')} ON ${column('n', 'id')} = ${column('w', 'id')}${row.versionJoin}` +
    ` ORDER BY ${column('w', 'position')}`
  );
}

function idListParameter(dataSource: DataSource, ids: string[]): unknown {
  return dataSource.options.type === 'postgres' ? ids : JSON.stringify(ids);
}
