import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { Finding } from '../archive-checks/findings';
import { NodeVersionEntity, NodeVersionStatus } from '../entities/node-version.entity';
import { VersionReviewEntity } from './entities/version-review.entity';
import { VersionStatusChangeEntity } from './entities/version-status-change.entity';

/** A status change as the history records it. */
export interface StatusChange {
  status: NodeVersionStatus;
  reason: string | null;
  by: string;
}

/** The only code that reads or writes `version_reviews` and `version_status_changes`. */
@Injectable()
export class VersionReviewsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The version's latest findings, or null when its archive was never checked. */
  findReview(nodeVersionId: string, manager: EntityManager = this.dataSource.manager): Promise<VersionReviewEntity | null> {
    return manager.findOneBy(VersionReviewEntity, { nodeVersionId });
  }

  /** The findings of the version's archive `archiveSha256`, replacing any earlier ones. */
  async saveReview(manager: EntityManager, nodeVersionId: string, archiveSha256: string, findings: Finding[]): Promise<void> {
    await manager.upsert(VersionReviewEntity, { nodeVersionId, archiveSha256, findings, checkedAt: new Date() }, ['nodeVersionId']);
  }

  /** Records that `version` (as it now is: its archive, if it has one) changed to `change.status`. */
  async appendStatusChange(manager: EntityManager, version: Pick<NodeVersionEntity, 'id' | 'archiveSha256'>, change: StatusChange, at: Date): Promise<void> {
    const releasedArchiveSha256 = change.status === 'NodeVersionStatusActive' ? version.archiveSha256 : null;
    await manager.insert(VersionStatusChangeEntity, { nodeVersionId: version.id, ...change, releasedArchiveSha256, at });
  }

  /** The ids of the versions that were ever made active with this archive. */
  async versionsThatReleased(sha256: string): Promise<string[]> {
    const changes = await this.dataSource.manager.find(VersionStatusChangeEntity, { where: { releasedArchiveSha256: sha256 }, select: { nodeVersionId: true } });
    return [...new Set(changes.map((change) => change.nodeVersionId))];
  }

  /** The version's status changes, oldest first. */
  history(nodeVersionId: string): Promise<VersionStatusChangeEntity[]> {
    return this.dataSource.manager.find(VersionStatusChangeEntity, { where: { nodeVersionId }, order: { id: 'ASC' } });
  }
}
