import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, FindOneOptions, In, IsNull, Not, SelectQueryBuilder } from 'typeorm';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { CatalogCountEntity } from './entities/catalog-count.entity';
import { NodeVersionEntity, NodeVersionStatus } from './entities/node-version.entity';
import { NodeEntity, NodeStatus } from './entities/node.entity';
import { CatalogSortField, CatalogSortKey } from './catalog-sort';
import type { ArchiveReviewJob } from './review/archive-review';
import { SearchTotalEntity } from './entities/search-total.entity';
import { CatalogSearch, ListingWalk } from './search/catalog-search';
import { foldedSql } from '../database/fold-case';
import { containsIgnoringCase, containsPattern } from './search/search-sql';
import { SUPPORTS_EVERY_PLATFORM } from './compatibility/platforms';
import { TransactionRunner } from '../database/transaction-runner';

/** Which nodes a catalog read selects (docs/api-rules.md §3, §6, §9). Every part is optional and they combine with AND. */
export interface NodeListFilter {
  search?: string;
  /** Only nodes changed (the row or any version) after this instant. */
  changedAfter?: Date;
  /** Only these nodes (lower-cased ids). */
  normalizedIds?: string[];
  /** Substring of `repository`, ignoring case. */
  repositorySearch?: string;
  /** Only nodes whose latest version provides a node class in this subquery's `node_version_id`s (docs/api-rules.md §9.3). */
  providingVersionIds?: { sql: string; parameters: Record<string, unknown> };
  /**
   * Only nodes whose platform list (the latest version's, else the node's)
   * supports one of these spellings of an OS family, or every platform
   * (docs/api-rules.md §9.1). An empty array: only lists that support every platform.
   */
  os?: readonly string[];
  /** The same, for accelerators. */
  accelerator?: readonly string[];
  /** Banned nodes are listed too (an admin asked). */
  includeBanned?: boolean;
  offset: number;
  limit: number;
}

/** A node that may be close to a search term. */
export type CloseCandidate = Pick<NodeEntity, 'id' | 'name'>;

/** How a page is ordered: the listing's order (docs/api-rules.md §3), a sort, or relevance to a search term (§9.2). */
export type NodeListOrder = { by: 'listing' } | { by: 'sort'; keys: CatalogSortKey[] } | { by: 'relevance'; term: string };

/** A page of listed nodes, each with its latest version, and how many nodes the filter selects. */
export interface NodePage {
  nodes: NodeEntity[];
  total: number;
}

/** Data access for the node aggregate: nodes, their versions, the listed count and the kept search totals. */
@Injectable()
export class NodesRepository {
  /** The kept totals counted in the current second (see mayKeepSearchTotal). */
  private keptThisSecond = { second: 0, count: 0 };

  constructor(
    private readonly dataSource: DataSource,
    private readonly search: CatalogSearch,
    private readonly tx: TransactionRunner,
  ) {}

  /** The node's own row (what a write checks), locked with `lock` when given. */
  findNode(
    normalizedId: string,
    manager: EntityManager = this.dataSource.manager,
    { lock }: Pick<FindOneOptions, 'lock'> = {},
  ): Promise<NodeEntity | null> {
    return manager.findOne(NodeEntity, { where: { normalizedId }, lock });
  }

  /**
   * The node with its latest version. A write that answers with the node
   * reads it under `lock` (from TransactionRunner.lockForUpdate): the row is
   * locked first, in a statement of its own, so the read after it sees
   * everything committed before the lock was granted (see lockNodeRow).
   */
  async findNodeForDisplay(
    normalizedId: string,
    manager: EntityManager = this.dataSource.manager,
    { lock }: Pick<FindOneOptions, 'lock'> = {},
  ): Promise<NodeEntity | null> {
    await this.lockNodeRow(manager, normalizedId, lock);
    // One statement: findOne with a relation would first select the id DISTINCT, then the row.
    return manager
      .createQueryBuilder(NodeEntity, 'node')
      .leftJoinAndSelect('node.latestVersion', 'latest')
      .where('node.normalizedId = :normalizedId', { normalizedId })
      .getOne();
  }

  /**
   * A page of the listed nodes in `order`, and how many the filter selects.
   * In the listing's order the page's ids come from an index walk (the
   * partial catalog index is in exactly that order), then only their rows
   * are read, so a deep page walks the index, not the rows before it; a page
   * past the middle is walked from the end (the same index read backwards),
   * so the last page costs what the first does. The whole catalog's size is
   * the count the triggers keep, as is a common search's (searchTotal); a
   * filter's is counted.
   */
  async listNodes(filter: NodeListFilter, order: NodeListOrder = { by: 'listing' }): Promise<NodePage> {
    const total = await this.totalOf(filter);
    if (filter.offset >= total) return { nodes: [], total };
    const ids = order.by === 'listing' ? await this.idsInListingOrder(filter, total) : await this.idsInOrder(filter, order);
    return { nodes: await this.nodesInOrder(ids), total };
  }

  /** How many listed nodes the filter selects. */
  private totalOf(filter: NodeListFilter): Promise<number> {
    if (isWholeCatalog(filter)) return this.listedCount();
    if (isSearchAlone(filter)) return this.searchTotal(filter.search);
    return this.countOf(this.catalogQuery(filter));
  }

  /**
   * How many listed nodes match a search: kept, for a term matching at least
   * KEEP_SEARCH_TOTALS_FROM, by the triggers that follow every node write
   * (SearchTotalEntity), so a common term is not counted again after each
   * write; counted otherwise. Whether a term is common is known only once
   * it is counted: it is then counted once more, in a unit of work that
   * holds off the writes that could move it, and kept.
   */
  private async searchTotal(term: string): Promise<number> {
    const kept = await this.dataSource.manager.findOneBy(SearchTotalEntity, { term });
    if (kept) return kept.matches;
    const counted = await this.countOf(this.catalogQuery({ search: term, offset: 0, limit: 0 }));
    return counted < KEEP_SEARCH_TOTALS_FROM || !this.mayKeepSearchTotal() ? counted : this.keepSearchTotal(term);
  }

  /** Counts the term's matches under the lock that holds off the writes that could move them, and keeps the total (the first kept dropped beyond KEPT_SEARCH_TOTALS). */
  private keepSearchTotal(term: string): Promise<number> {
    return this.tx.run(async (manager) => {
      await this.search.lockSearchTotals(manager);
      const keptMeanwhile = await manager.findOneBy(SearchTotalEntity, { term });
      if (keptMeanwhile) return keptMeanwhile.matches;
      const matches = await this.countOf(this.catalogQuery({ search: term, offset: 0, limit: 0 }, manager));
      const beyond = await manager.find(SearchTotalEntity, { select: { term: true }, order: { keptAt: 'DESC', term: 'ASC' }, skip: KEPT_SEARCH_TOTALS - 1 });
      if (beyond.length > 0) await manager.delete(SearchTotalEntity, { term: In(beyond.map((total) => total.term)) });
      await manager.insert(SearchTotalEntity, { term, pattern: containsPattern(term), matches, keptAt: new Date() });
      return matches;
    });
  }

  /**
   * Whether another total may be kept this second. Keeping one holds off
   * writes of searched columns for a count (10–20 ms at 50,000 nodes), so
   * searches that keep missing (more than KEPT_SEARCH_TOTALS terms in turn)
   * may not hold them off more than KEEPS_PER_SECOND times a second.
   */
  private mayKeepSearchTotal(): boolean {
    const second = Math.floor(Date.now() / 1000);
    if (this.keptThisSecond.second !== second) this.keptThisSecond = { second, count: 0 };
    this.keptThisSecond.count += 1;
    return this.keptThisSecond.count <= KEEPS_PER_SECOND;
  }

  /** The rows a catalog query selects (no filter joins a row more than once, so no DISTINCT: it cost a third of a common search's count). */
  private async countOf(query: SelectQueryBuilder<NodeEntity>): Promise<number> {
    // A count is no entity: TypeORM gives it raw (PostgreSQL's is a bigint, as text).
    const row = await query.select('COUNT(*)', 'count').getRawOne<{ count: string | number }>();
    return Number(row?.count ?? 0);
  }

  private async idsInListingOrder(filter: NodeListFilter, total: number): Promise<string[]> {
    const backward = 2 * filter.offset + filter.limit > total;
    const fromEnd = total - filter.offset;
    const walk = isSearchAlone(filter) && this.search.choosesListingWalk ? { matches: total, listed: await this.listedCount(), reach: backward ? fromEnd : filter.offset + filter.limit } : undefined;
    const rows = await inListingOrder(this.catalogQuery(filter, this.dataSource.manager, walk), { backward })
      .select('node.id', 'id')
      .offset(backward ? Math.max(0, fromEnd - filter.limit) : filter.offset)
      .limit(backward ? Math.min(filter.limit, fromEnd) : filter.limit)
      .getRawMany<{ id: string }>();
    const ids = rows.map(({ id }) => id);
    return backward ? ids.reverse() : ids;
  }

  /** A page's ids in a sort's order or by relevance, ties broken by the listing's order (sorts: by id), so paging is stable. */
  private async idsInOrder(filter: NodeListFilter, order: Exclude<NodeListOrder, { by: 'listing' }>): Promise<string[]> {
    const query = this.catalogQuery(filter).select('node.id', 'id');
    if (order.by === 'relevance') {
      query.addSelect(RELEVANCE_RANK, 'relevance').setParameters(relevanceParameters(order.term)).orderBy('relevance', 'ASC');
      inListingOrder(query, { after: true });
    } else {
      order.keys.forEach(({ field, descending }, index) => {
        query.addSelect(this.sortExpression(field), `sort_${index}`).addOrderBy(`sort_${index}`, descending ? 'DESC' : 'ASC');
      });
      query.addOrderBy('node.id', 'ASC');
    }
    const rows = await query.offset(filter.offset).limit(filter.limit).getRawMany<{ id: string }>();
    return rows.map(({ id }) => id);
  }

  /** What a sort field orders by: a column of the node (publisher_name: its copy of its publisher's name). */
  private sortExpression(field: CatalogSortField): string {
    const columns: Record<CatalogSortField, string> = {
      downloads: 'node.downloads',
      name: 'LOWER(node.name)',
      created_at: 'node.created_at',
      last_updated: LAST_CHANGED,
      rating: 'node.rating',
      github_stars: 'node.github_stars',
      search_ranking: 'node.search_ranking',
      publisher_name: 'LOWER(node.publisher_name)',
    };
    return columns[field];
  }

  /**
   * Up to `limit` listed nodes the filter selects (its search left out)
   * whose id or name shares most trigrams with `term`, ties in the listing's
   * order: the candidates the caller scores (see fuzzy-match.ts).
   */
  async closeToCandidates(term: string, filter: NodeListFilter, limit: number): Promise<CloseCandidate[]> {
    const query = this.catalogQuery({ ...filter, search: undefined }).select('node.id', 'id').addSelect('node.name', 'name');
    return inListingOrder(this.search.closeTo(query, 'node', term), { after: true }).limit(limit).getRawMany<CloseCandidate>();
  }

  /** The publisher's nodes with one of `statuses`, with their latest versions, newest first. */
  publisherNodes(publisherId: string, statuses: NodeStatus[]): Promise<NodeEntity[]> {
    return this.dataSource.manager.find(NodeEntity, {
      where: { publisherId, status: In(statuses) },
      relations: { latestVersion: true },
      order: { createdAt: 'DESC', id: 'ASC' },
    });
  }

  /** The nodes with these lower-cased ids (any status). */
  findNodes(normalizedIds: string[]): Promise<NodeEntity[]> {
    return normalizedIds.length === 0 ? Promise.resolve([]) : this.dataSource.manager.findBy(NodeEntity, { normalizedId: In(normalizedIds) });
  }

  /** The versions with these semantic versions, each of its node. */
  findVersionsByNumber(pairs: Array<{ nodeId: string; version: string }>): Promise<NodeVersionEntity[]> {
    return pairs.length === 0 ? Promise.resolve([]) : this.dataSource.manager.findBy(NodeVersionEntity, pairs);
  }

  /** What the compatible-version choice reads of the versions of these nodes (docs/api-rules.md §9.1). */
  compatibilityCandidates(nodeIds: string[]): Promise<NodeVersionEntity[]> {
    return this.dataSource.manager.find(NodeVersionEntity, {
      where: { nodeId: In(nodeIds), status: 'NodeVersionStatusActive' },
      select: { id: true, nodeId: true, version: true, status: true, deprecated: true, supportedAppVersion: true, supportedOs: true },
    });
  }

  /** The versions holding this archive now or with one of `versionIds` (their status and node), with those nodes (any status). */
  async archiveHolders(sha256: string, versionIds: string[]): Promise<{ versions: NodeVersionEntity[]; nodes: NodeEntity[] }> {
    const versions = await this.dataSource.manager.find(NodeVersionEntity, {
      where: [{ archiveSha256: sha256 }, ...(versionIds.length > 0 ? [{ id: In(versionIds) }] : [])],
      select: { id: true, nodeId: true, status: true, archiveSha256: true },
    });
    const nodeIds = [...new Set(versions.map((version) => version.nodeId))];
    const nodes = nodeIds.length === 0 ? [] : await this.dataSource.manager.find(NodeEntity, { where: { id: In(nodeIds) }, select: { id: true, status: true, publisherId: true } });
    return { versions, nodes };
  }

  /** The versions with these ids. */
  versionsByIds(ids: string[]): Promise<NodeVersionEntity[]> {
    return ids.length === 0 ? Promise.resolve([]) : this.dataSource.manager.findBy(NodeVersionEntity, { id: In(ids) });
  }

  /** The nodes of `ids` with their latest versions, in that order (an id whose row is gone is left out). */
  async nodesInOrder(ids: string[]): Promise<NodeEntity[]> {
    if (ids.length === 0) return [];
    // A query builder, not find() with the relation: find() builds its statement at about four times the cost and
    // names every joined column by its relation's path, which the rows then carry (this read of a page of 100 takes
    // 10-13% less CPU).
    const found = await this.dataSource.manager
      .createQueryBuilder(NodeEntity, 'node')
      .leftJoinAndSelect('node.latestVersion', 'latest')
      .where('node.id IN (:...ids)', { ids })
      .getMany();
    const byId = new Map(found.map((node) => [node.id, node]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  /** How many nodes are listed, as the triggers keep it (see CatalogCountEntity). */
  private async listedCount(): Promise<number> {
    return (await this.dataSource.manager.findOneBy(CatalogCountEntity, { id: 1 }))?.listed ?? 0;
  }

  /**
   * The listed nodes a filter selects. The status is a literal so both
   * planners can use the partial catalog index. `walk`: see CatalogSearch.matching.
   */
  private catalogQuery(filter: NodeListFilter, manager: EntityManager = this.dataSource.manager, walk?: ListingWalk): SelectQueryBuilder<NodeEntity> {
    const query = manager
      .createQueryBuilder(NodeEntity, 'node')
      .where(filter.includeBanned ? `node.status IN ('NodeStatusActive', 'NodeStatusBanned')` : `node.status = 'NodeStatusActive'`);
    if (filter.search) this.search.matching(query, 'node', filter.search, walk);
    if (filter.changedAfter) {
      // Changed: the node's own row or any of its versions (docs/api-rules.md §6), each found from its `updated_at` index.
      query.andWhere(
        `node.id IN (SELECT id FROM nodes WHERE updated_at > :changedAfter UNION ALL SELECT node_id FROM node_versions WHERE updated_at > :changedAfter)`,
        { changedAfter: filter.changedAfter },
      );
    }
    if (filter.normalizedIds) query.andWhere('node.normalizedId IN (:...normalizedIds)', { normalizedIds: filter.normalizedIds });
    if (filter.repositorySearch) {
      query.andWhere(containsIgnoringCase('node.repository', 'repositoryPattern'), { repositoryPattern: containsPattern(filter.repositorySearch) });
    }
    if (filter.providingVersionIds) {
      query.andWhere(`node.latest_version_id IN (${filter.providingVersionIds.sql})`, filter.providingVersionIds.parameters);
    }
    if (filter.os || filter.accelerator) {
      query.leftJoin('node.latestVersion', 'platforms');
      if (filter.os) query.andWhere(...supportsOneOf('supported_os', filter.os));
      if (filter.accelerator) query.andWhere(...supportsOneOf('supported_accelerators', filter.accelerator));
    }
    return query;
  }

  /** A new node. INSERT, not save(): save() would update a node that a concurrent request created first. */
  async insertNode(manager: EntityManager, node: NodeEntity): Promise<void> {
    await manager.insert(NodeEntity, columns(node));
  }

  /** Sets the given columns (one UPDATE; save() would SELECT the row first). */
  async updateNode(manager: EntityManager, nodeId: string, changes: Partial<NodeEntity>): Promise<void> {
    await manager.update(NodeEntity, { id: nodeId }, columns(changes));
  }

  /** A renamed publisher's new name, on its nodes' copies (inside the rename's transaction). */
  async setPublisherName(manager: EntityManager, publisherId: string, name: string): Promise<void> {
    await manager.update(NodeEntity, { publisherId }, { publisherName: name });
  }

  /**
   * Every node of the publisher that is not deleted gets `status` (a
   * publisher's ban). The kept search totals are locked first: the statement
   * moves them node by node, and could otherwise lock their rows in another
   * order than a concurrent edit does (a deadlock on PostgreSQL).
   */
  async setPublisherNodesStatus(manager: EntityManager, publisherId: string, status: NodeStatus, detail: string): Promise<void> {
    await this.search.lockSearchTotals(manager);
    await manager.update(NodeEntity, { publisherId, status: Not('NodeStatusDeleted') }, { status, statusDetail: detail, updatedAt: new Date() });
  }

  /** Sets the given columns if the node's status is still the one the caller read and checked; false when it changed (nothing written). */
  async updateNodeIfStatus(manager: EntityManager, node: Pick<NodeEntity, 'id' | 'status'>, changes: Partial<NodeEntity>): Promise<boolean> {
    const { affected } = await manager.update(NodeEntity, { id: node.id, status: node.status }, columns(changes));
    return affected === 1;
  }

  /**
   * A version's changes, with its own change time (`updated_at`, which a
   * sync with `timestamp` reads, docs/api-rules.md §6), if the version's status and
   * its node's, and its archive, are still those the caller read and checked: one statement
   * that writes only the version's row. The version as written, or null when
   * either status changed in between (nothing written).
   */
  async updateVersionIfStatus(
    manager: EntityManager,
    node: Pick<NodeEntity, 'id' | 'status'>,
    version: Pick<NodeVersionEntity, 'id' | 'status' | 'archiveSha256'>,
    changes: Partial<NodeVersionEntity>,
    changedAt: Date,
  ): Promise<NodeVersionEntity | null> {
    const { affected } = await manager
      .createQueryBuilder()
      .update(NodeVersionEntity)
      .set({ ...changes, updatedAt: changedAt })
      .where('id = :id AND status = :status', { id: version.id, status: version.status })
      // The archive too: a decision checked against one archive (or none) must not apply to another attached meanwhile.
      .andWhere(version.archiveSha256 === null ? 'archive_sha256 IS NULL' : 'archive_sha256 = :sha256', { sha256: version.archiveSha256 })
      .andWhere('EXISTS (SELECT 1 FROM nodes WHERE nodes.id = :nodeId AND nodes.status = :nodeStatus)', { nodeId: node.id, nodeStatus: node.status })
      .execute();
    return affected === 1 ? manager.findOneBy(NodeVersionEntity, { id: version.id }) : null;
  }

  /** A version of the node by its id or by its semantic version string. */
  findVersion(manager: EntityManager, nodeId: string, idOrVersion: string): Promise<NodeVersionEntity | null> {
    return manager.findOne(NodeVersionEntity, { where: [{ nodeId, id: idOrVersion }, { nodeId, version: idOrVersion }] });
  }

  /**
   * A version by id, read after locking its node's row: every write that
   * moves a version's status or archive takes that lock first, so what the
   * version read shows of those is current (a changelog edit takes no node
   * lock, see NodesService.updateVersion).
   */
  async lockVersionWithNode(manager: EntityManager, versionId: string, { lock }: Pick<FindOneOptions, 'lock'>): Promise<NodeVersionEntity | null> {
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

  /**
   * The listed nodes whose latest version is one of `versionIds`, each with
   * it, in the listing's order (docs/api-rules.md §3). Reached from the
   * versions' primary key (their nodes' ids), not from `latest_version_id`,
   * which has no index.
   */
  nodesWithLatestVersionIn(versionIds: string[]): Promise<NodeEntity[]> {
    if (versionIds.length === 0) return Promise.resolve([]);
    const query = this.dataSource.manager
      .createQueryBuilder(NodeEntity, 'node')
      .innerJoinAndSelect('node.latestVersion', 'latest')
      .where(`node.status = 'NodeStatusActive'`)
      .andWhere('node.id IN (SELECT node_id FROM node_versions WHERE id IN (:...versionIds))', { versionIds })
      .andWhere('latest.id IN (:...versionIds)', { versionIds });
    return inListingOrder(query).getMany();
  }

  /**
   * The archives still waiting for their review (docs/api-rules.md §9.3, §10):
   * of versions pending with an archive (checks), or whose node classes are
   * still to be extracted. Each from its partial index (the literals let
   * both planners use them).
   */
  async archivesAwaitingReview(): Promise<ArchiveReviewJob[]> {
    const waiting = (condition: string) =>
      this.dataSource.manager
        .createQueryBuilder(NodeVersionEntity, 'version')
        .select(['version.id', 'version.version', 'version.archiveSha256'])
        .where(condition)
        .andWhere('version.archiveSha256 IS NOT NULL')
        .getMany();
    const versions = [...(await waiting(`version.status = 'NodeVersionStatusPending'`)), ...(await waiting(`version.appNodeExtractStatus = 'pending'`))];
    const jobs = new Map(versions.map((v) => [v.id, { versionId: v.id, version: v.version, sha256: v.archiveSha256 as string }]));
    return [...jobs.values()];
  }

  /** How many versions have each status (from `ix_node_versions_queue`); statuses no version has are left out. */
  async versionCountsByStatus(): Promise<Map<NodeVersionStatus, number>> {
    // Counts by group are no entity: TypeORM gives them raw (PostgreSQL's count is a bigint, as text).
    const rows = await this.dataSource.manager
      .createQueryBuilder(NodeVersionEntity, 'version')
      .select('version.status', 'status')
      .addSelect('COUNT(*)', 'count')
      .groupBy('version.status')
      .getRawMany<{ status: NodeVersionStatus; count: string | number }>();
    return new Map(rows.map((row) => [row.status, Number(row.count)]));
  }

  /** How many stored archives still wait for their checks (docs/api-rules.md §10), from its partial index. */
  archiveChecksPending(): Promise<number> {
    return this.dataSource.manager.countBy(NodeVersionEntity, { status: 'NodeVersionStatusPending', archiveSha256: Not(IsNull()) });
  }

  /** The admin queue (docs/api-rules.md §10): versions with one of `statuses`, oldest first, and how many there are. */
  versionQueue(statuses: NodeVersionStatus[], offset: number, limit: number): Promise<[NodeVersionEntity[], number]> {
    return this.dataSource.manager.findAndCount(NodeVersionEntity, {
      where: { status: In(statuses) },
      order: { createdAt: 'ASC', id: 'ASC' },
      skip: offset,
      take: limit,
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

  async updateVersion(manager: EntityManager, versionId: string, changes: Partial<NodeVersionEntity>): Promise<void> {
    await manager.update(NodeVersionEntity, { id: versionId }, changes);
  }

  /**
   * Locks the node row first, in a statement of its own, so that a read after
   * it sees everything committed before the lock was granted. A locking join
   * would not: PostgreSQL (READ COMMITTED) re-reads only the locked row after
   * a wait, and the joined version row would be the one of before it, e.g. a
   * latest version a concurrent version write just replaced. SQLite
   * serialises writers and takes no row locks. Writes take it too before a
   * statement that must see every change committed to the node's rows (a
   * rating recomputed from its reviews).
   */
  async lockNodeRow(manager: EntityManager, normalizedId: string, lock: FindOneOptions['lock']): Promise<void> {
    if (lock) await manager.findOne(NodeEntity, { where: { normalizedId }, lock });
  }
}

/**
 * A node's values as TypeORM's insert and update take them. Its deep-partial
 * type cannot follow `translations` (a simple-json record of records), which
 * the column stores whole.
 */
function columns(node: Partial<NodeEntity>): QueryDeepPartialEntity<NodeEntity> {
  return node as QueryDeepPartialEntity<NodeEntity>;
}

/**
 * Orders `query` in the listing's order (docs/api-rules.md §3), the order of
 * the partial catalog index: `backward` is its exact reverse; `after` keeps
 * the query's own order first and breaks its ties this way.
 */
function inListingOrder<T extends NodeEntity>(query: SelectQueryBuilder<T>, { backward = false, after = false } = {}): SelectQueryBuilder<T> {
  const [first, second] = backward ? (['ASC', 'DESC'] as const) : (['DESC', 'ASC'] as const);
  const start = after ? query.addOrderBy('node.searchRanking', first) : query.orderBy('node.searchRanking', first);
  return start.addOrderBy('node.downloads', first).addOrderBy('node.id', second);
}

/** A search's total is kept from this many matches (SearchTotalEntity); fewer cost little to count each time. */
export const KEEP_SEARCH_TOTALS_FROM = 1000;

/**
 * The most search totals kept: a node write that changes a searched column
 * tests the node against each kept term. The oldest kept is dropped first.
 */
export const KEPT_SEARCH_TOTALS = 100;

/** The most totals an instance keeps in a second (see NodesRepository.mayKeepSearchTotal). */
export const KEEPS_PER_SECOND = 20;

/** Whether the filter is a search alone, of the listed nodes, whose total may be kept. */
function isSearchAlone(filter: NodeListFilter): filter is NodeListFilter & { search: string } {
  return Boolean(filter.search) && isWholeCatalog({ ...filter, search: undefined });
}

/** Whether the filter selects the whole listed catalog, whose size the triggers keep: it narrows by nothing. */
function isWholeCatalog({ search, changedAfter, normalizedIds, repositorySearch, providingVersionIds, os, accelerator, includeBanned }: NodeListFilter): boolean {
  return [search, changedAfter, normalizedIds, repositorySearch, providingVersionIds, os, accelerator].every((part) => part === undefined) && !includeBanned;
}

/** When a version of the node last changed (its own change time, else its creation). */
const LAST_VERSION_CHANGE = `(SELECT MAX(COALESCE(changed.updated_at, changed.created_at)) FROM node_versions changed WHERE changed.node_id = node.id)`;

/**
 * `last_updated` (docs/api-rules.md §9.1): the node's own change or its
 * versions' latest, whichever is later (a changelog edit changes only its
 * version's row).
 */
const LAST_CHANGED = `CASE WHEN ${LAST_VERSION_CHANGE} > node.updated_at THEN ${LAST_VERSION_CHANGE} ELSE node.updated_at END`;

/** What separates the words of a name (besides a space), for search relevance: ASCII punctuation. */
const WORD_SEPARATORS = [...'-_/\\()[]{}.,:;|+&"\'!?*#@<>=~`^$%'];

/** `text` with every word separator turned into a space (`sql`: a SQL expression). */
const separatorsToSpaces = (sql: string) => WORD_SEPARATORS.reduce((expr, separator) => `REPLACE(${expr}, '${separator.replace("'", "''")}', ' ')`, sql);

/**
 * Search relevance (docs/api-rules.md §9.2), lower first: the id or name is
 * the term, the name starts with it, a word of the name (after a space or
 * punctuation) does, anything else.
 */
const RELEVANCE_RANK = `CASE WHEN node.normalized_id = :relevanceId OR ${foldedSql('node.name')} = ${foldedSql(':relevanceName')} THEN 0
    WHEN ${foldedSql('node.name')} LIKE ${foldedSql(':relevancePrefix')} ESCAPE '!' THEN 1
    WHEN ${separatorsToSpaces(foldedSql('node.name'))} LIKE ${foldedSql(':relevanceWord')} ESCAPE '!' THEN 2
    ELSE 3 END`;

/** RELEVANCE_RANK's parameters for a term. */
function relevanceParameters(term: string): Record<string, string> {
  const withSpaces = WORD_SEPARATORS.reduce((text, separator) => text.replaceAll(separator, ' '), term);
  return {
    // An id is kept lower-cased by toLowerCase (normalizedId; ids are ASCII); a name is folded by the database.
    relevanceId: term.toLowerCase(),
    relevanceName: term,
    relevancePrefix: containsPattern(term).slice(1),
    relevanceWord: `% ${containsPattern(withSpaces).slice(1)}`,
  };
}

/**
 * The platform filter's condition on the list that counts (the latest
 * version's, joined as `platforms`, else the node's own): it is empty, says
 * it supports every platform, or holds one of `spellings`. The lists are
 * JSON arrays of strings, so each value is matched with its quotes.
 */
function supportsOneOf(column: 'supported_os' | 'supported_accelerators', spellings: readonly string[]): [string, Record<string, string>] {
  const list = `LOWER(CASE WHEN node.latest_version_id IS NULL THEN node.${column} ELSE platforms.${column} END)`;
  const parameters: Record<string, string> = { [`${column}_every`]: `%${JSON.stringify(SUPPORTS_EVERY_PLATFORM)}%` };
  spellings.forEach((spelling, index) => (parameters[`${column}_${index}`] = `%${JSON.stringify(spelling)}%`));
  const matches = Object.keys(parameters).map((name) => `${list} LIKE :${name}`);
  return [`(${list} = '[]' OR ${matches.join(' OR ')})`, parameters];
}
