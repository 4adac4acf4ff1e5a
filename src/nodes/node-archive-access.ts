import { Injectable, OnModuleInit } from '@nestjs/common';
import { ArchiveAccess, ArchiveAccessPolicy } from '../archives/archive-access';
import { ArchivesService } from '../archives/archives.service';
import { Principal } from '../auth/principal';
import { PublishersService } from '../publishers/publishers.service';
import { INSTALLABLE, NodeVersionEntity, NodeVersionStatus } from './entities/node-version.entity';
import { NodesRepository } from './nodes.repository';
import { VersionReviewsRepository } from './review/version-reviews.repository';

/** An admin's ban of a version withdraws the archives it released; a newer archive's findings do not (existing installs keep working). */
const WITHDRAWN: NodeVersionStatus = 'NodeVersionStatusBanned';

/**
 * Who may download the archives node versions hold. An archive is public
 * while an active version holds it, and once a version was made active with
 * it (its checks passed, or an admin approved it) also after that version
 * is deleted or given a newer archive (existing installs keep working;
 * docs/api-rules.md §10), unless an admin bans the version, or its node is
 * banned. Any other archive (pending, or blocked by its checks: it may hold
 * a leaked key) goes to admins and to the members of a non-banned node's
 * publisher whose version holds or released it, and to no one else.
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
    // A version with no release on record may be installable now: a database from before releases were recorded holds none.
    const releases = (version: NodeVersionEntity) =>
      released.has(version.id) ? version.status !== WITHDRAWN : version.status === INSTALLABLE && version.archiveSha256 === sha256;
    if (versions.some((version) => unbanned.has(version.nodeId) && releases(version))) return 'public';
    if (caller === undefined || versions.length === 0) return 'none';
    if (caller.isAdmin) return 'caller';
    for (const publisherId of new Set([...unbanned.values()].map((node) => node.publisherId))) {
      if (await this.publishers.actsFor(publisherId, caller)) return 'caller';
    }
    return 'none';
  }
}
