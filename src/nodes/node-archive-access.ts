import { Injectable, OnModuleInit } from '@nestjs/common';
import { ArchiveAccess, ArchiveAccessPolicy } from '../archives/archive-access';
import { ArchivesService } from '../archives/archives.service';
import { Principal } from '../auth/principal';
import { PublishersService } from '../publishers/publishers.service';
import { NodeVersionStatus } from './entities/node-version.entity';
import { NodesRepository } from './nodes.repository';
import { VersionReviewsRepository } from './review/version-reviews.repository';

/** A version in one of these withdraws the archives it released (its checks or an admin found it unfit). */
const WITHDRAWN: readonly NodeVersionStatus[] = ['NodeVersionStatusFlagged', 'NodeVersionStatusBanned'];

/**
 * Who may download the archives node versions hold. An archive is public
 * once a version was made active with it (its checks passed, or an admin
 * approved it), and stays so when that version is deleted or given a newer
 * archive (existing installs keep working; docs/api-rules.md §10), unless
 * the version is flagged or banned since, or its node banned. Any other
 * archive (pending, or blocked by its checks: it may hold a leaked key)
 * goes to admins and to the members of a non-banned node's publisher that
 * holds it or released it, and to no one else.
 */
@Injectable()
export class NodeArchiveAccess implements ArchiveAccessPolicy, OnModuleInit {
  constructor(
    private readonly nodes: NodesRepository,
    private readonly history: VersionReviewsRepository,
    private readonly publishers: PublishersService,
    private readonly archives: ArchivesService,
  ) {}

  onModuleInit(): void {
    this.archives.governDownloads(this);
  }

  async accessTo(sha256: string, caller: Principal | undefined): Promise<ArchiveAccess> {
    const released = new Set(await this.history.versionsThatReleased(sha256));
    const { versions, nodes } = await this.nodes.archiveHolders(sha256, [...released]);
    const unbanned = new Map(nodes.filter((node) => node.status !== 'NodeStatusBanned').map((node) => [node.id, node]));
    if (versions.some((version) => released.has(version.id) && !WITHDRAWN.includes(version.status) && unbanned.has(version.nodeId))) return 'public';
    if (caller === undefined || versions.length === 0) return 'none';
    if (caller.isAdmin) return 'caller';
    for (const publisherId of new Set([...unbanned.values()].map((node) => node.publisherId))) {
      if (await this.publishers.actsFor(publisherId, caller)) return 'caller';
    }
    return 'none';
  }
}
