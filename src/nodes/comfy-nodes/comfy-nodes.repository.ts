import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { containsIgnoringCase, containsPattern } from '../search/search-sql';
import { ComfyNodeExtractionFailureEntity } from './entities/comfy-node-extraction-failure.entity';
import { ComfyNodeEntity } from './entities/comfy-node.entity';

/** Rows per INSERT: 11 parameters each keeps a statement far below SQLite's 32,766 and PostgreSQL's 65,535. */
const INSERT_BATCH = 500;

/** The only code that reads or writes `comfy_nodes` and `comfy_node_extraction_failures`. */
@Injectable()
export class ComfyNodesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** A page of the version's classes, ordered by name, and how many it has. */
  findPage(nodeVersionId: string, offset: number, limit: number): Promise<[ComfyNodeEntity[], number]> {
    return this.dataSource.manager.findAndCount(ComfyNodeEntity, {
      where: { nodeVersionId },
      order: { name: 'ASC' },
      skip: offset,
      take: limit,
    });
  }

  /** The versions that list a class of exactly this name (from the name's index). */
  async versionIdsListing(name: string): Promise<string[]> {
    const rows = await this.dataSource.manager.find(ComfyNodeEntity, { where: { name }, select: { nodeVersionId: true } });
    return rows.map((row) => row.nodeVersionId);
  }

  /**
   * A subquery (SQL and its parameters) of the versions that list a class
   * whose name contains `term`, ignoring case (docs/api-rules.md §9.2
   * `comfy_node_search`), for the catalog query to select nodes by their
   * latest version.
   */
  versionsProvidingLike(term: string): { sql: string; parameters: Record<string, unknown> } {
    const query = this.dataSource.manager
      .createQueryBuilder(ComfyNodeEntity, 'comfy_node')
      .select('comfy_node.nodeVersionId')
      .where(containsIgnoringCase('comfy_node.name', 'comfyNodePattern'), { comfyNodePattern: containsPattern(term) });
    return { sql: query.getQuery(), parameters: query.getParameters() };
  }

  /** The version's classes become `classes` (each of the version, names unique). */
  async replace(manager: EntityManager, nodeVersionId: string, classes: ComfyNodeEntity[]): Promise<void> {
    await manager.delete(ComfyNodeEntity, { nodeVersionId });
    for (let start = 0; start < classes.length; start += INSERT_BATCH) {
      await manager.insert(ComfyNodeEntity, classes.slice(start, start + INSERT_BATCH));
    }
  }

  /** Why the version's extraction failed, if it did and the reason is known. */
  async failureReason(manager: EntityManager, nodeVersionId: string): Promise<string | null> {
    return (await manager.findOneBy(ComfyNodeExtractionFailureEntity, { nodeVersionId }))?.reason ?? null;
  }

  /** Records why the version's extraction failed; null: it did not (any earlier reason is removed). */
  async setFailureReason(manager: EntityManager, nodeVersionId: string, reason: string | null): Promise<void> {
    if (reason === null) {
      await manager.delete(ComfyNodeExtractionFailureEntity, { nodeVersionId });
      return;
    }
    await manager.upsert(ComfyNodeExtractionFailureEntity, { nodeVersionId, reason }, ['nodeVersionId']);
  }
}
