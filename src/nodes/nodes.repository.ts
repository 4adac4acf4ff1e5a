import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, FindOneOptions, In, Not, SelectQueryBuilder } from 'typeorm';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { CatalogCountEntity } from './entities/catalog-count.entity';
import { NodeVersionEntity, NodeVersionStatus } from './entities/node-version.entity';
import { NodeEntity } from './entities/node.entity';
import { CatalogSearch } from './search/catalog-search';

export interface NodeListFilter {
  search?: string;
  /** Only nodes changed (the row or any version) after this instant. */
  changedAfter?: Date;
  offset: number;
  limit: number;
}

/** A page of listed nodes, each with its latest version, and how many nodes the filter selects. */
export interface NodePage {
  nodes: NodeEntity[];
  total: number;
}

/** Data access for the node aggregate: nodes, their versions and the listed count. */
@Injectable()
export class NodesRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly search: CatalogSearch,
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
   * A page of the listed nodes in the listing's order (docs/api-rules.md §3), and how
   * many the filter selects. The page's ids come from an index walk (the
   * partial catalog index is in exactly the listing's order), then only
   * their rows are read, so a deep page walks the index, not the rows before
   * it. A page past the middle is walked from the end (the same index read
   * backwards), so the last page costs what the first does. The whole
   * catalog's size is the count the triggers keep; a filter's is counted.
   */
  async listActiveNodes(filter: NodeListFilter): Promise<NodePage> {
    const total = filter.search || filter.changedAfter ? await this.catalogQuery(filter).getCount() : await this.listedCount();
    if (filter.offset >= total) return { nodes: [], total };
    const backward = 2 * filter.offset + filter.limit > total;
    const fromEnd = total - filter.offset;
    const rows = await inListingOrder(this.catalogQuery(filter), backward)
      .select('node.id', 'id')
      .offset(backward ? Math.max(0, fromEnd - filter.limit) : filter.offset)
      .limit(backward ? Math.min(filter.limit, fromEnd) : filter.limit)
      .getRawMany<{ id: string }>();
    const ids = rows.map(({ id }) => id);
    if (backward) ids.reverse();
    return { nodes: await this.nodesInOrder(ids), total };
  }

  /** The nodes of `ids` with their latest versions, in that order (an id whose row is gone is left out). */
  private async nodesInOrder(ids: string[]): Promise<NodeEntity[]> {
    if (ids.length === 0) return [];
    const found = await this.dataSource.manager.find(NodeEntity, { where: { id: In(ids) }, relations: { latestVersion: true } });
    const byId = new Map(found.map((node) => [node.id, node]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  /** How many nodes are listed, as the triggers keep it (see CatalogCountEntity). */
  private async listedCount(): Promise<number> {
    return (await this.dataSource.manager.findOneBy(CatalogCountEntity, { id: 1 }))?.listed ?? 0;
  }

  /** The listed nodes a filter selects. The status is a literal so both planners can use the partial catalog index. */
  private catalogQuery(filter: NodeListFilter): SelectQueryBuilder<NodeEntity> {
    const query = this.dataSource.manager.createQueryBuilder(NodeEntity, 'node').where(`node.status = 'NodeStatusActive'`);
    if (filter.search) this.search.matching(query, 'node', filter.search);
    if (filter.changedAfter) {
      // Changed: the node's own row or any of its versions (docs/api-rules.md §6), each found from its `updated_at` index.
      query.andWhere(
        `node.id IN (SELECT id FROM nodes WHERE updated_at > :changedAfter UNION ALL SELECT node_id FROM node_versions WHERE updated_at > :changedAfter)`,
        { changedAfter: filter.changedAfter },
      );
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

  /** Sets the given columns if the node's status is still the one the caller read and checked; false when it changed (nothing written). */
  async updateNodeIfStatus(manager: EntityManager, node: Pick<NodeEntity, 'id' | 'status'>, changes: Partial<NodeEntity>): Promise<boolean> {
    const { affected } = await manager.update(NodeEntity, { id: node.id, status: node.status }, columns(changes));
    return affected === 1;
  }

  /**
   * A version's changes, with its own change time (`updated_at`, which a
   * sync with `timestamp` reads, docs/api-rules.md §6), if the version's status and
   * its node's are still those the caller read and checked: one statement
   * that writes only the version's row. The version as written, or null when
   * either status changed in between (nothing written).
   */
  async updateVersionIfStatus(
    manager: EntityManager,
    node: Pick<NodeEntity, 'id' | 'status'>,
    version: Pick<NodeVersionEntity, 'id' | 'status'>,
    changes: Partial<NodeVersionEntity>,
    changedAt: Date,
  ): Promise<NodeVersionEntity | null> {
    const { affected } = await manager
      .createQueryBuilder()
      .update(NodeVersionEntity)
      .set({ ...changes, updatedAt: changedAt })
      .where('id = :id AND status = :status', { id: version.id, status: version.status })
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

/** The listing's order (docs/api-rules.md §3), or its exact reverse: the order of the partial catalog index. */
function inListingOrder<T extends NodeEntity>(query: SelectQueryBuilder<T>, backward: boolean): SelectQueryBuilder<T> {
  const [first, second] = backward ? (['ASC', 'DESC'] as const) : (['DESC', 'ASC'] as const);
  return query.orderBy('node.searchRanking', first).addOrderBy('node.downloads', first).addOrderBy('node.id', second);
}
