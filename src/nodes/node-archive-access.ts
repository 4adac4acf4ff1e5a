import { Injectable, OnModuleInit } from '@nestjs/common';
import { ArchiveAccess, ArchiveAccessPolicy } from '../archives/archive-access';
import { ArchivesService } from '../archives/archives.service';
import { Principal } from '../auth/principal';
import { PublishersService } from '../publishers/publishers.service';
import { NodeVersionStatus } from './entities/node-version.entity';
import { NodesRepository } from './nodes.repository';

/**
 * A version's archive is public once the version is installable, and stays
 * so when the version is deleted (existing installs keep working;
 * docs/api-rules.md §10).
 */
const RELEASED: readonly NodeVersionStatus[] = ['NodeVersionStatusActive', 'NodeVersionStatusDeleted'];

/**
 * Who may download the archives node versions hold: anyone once released
 * (unless its node is banned); until then, or while banned, admins, and the
 * members of its publisher who review it (not a banned node's). An archive
 * its checks blocked, which may hold a leaked key, is never public.
 */
@Injectable()
export class NodeArchiveAccess implements ArchiveAccessPolicy, OnModuleInit {
  constructor(
    private readonly nodes: NodesRepository,
    private readonly publishers: PublishersService,
    private readonly archives: ArchivesService,
  ) {}

  onModuleInit(): void {
    this.archives.governDownloads(this);
  }

  async accessTo(sha256: string, caller: Principal | undefined): Promise<ArchiveAccess> {
    const { versions, nodes } = await this.nodes.archiveHolders(sha256);
    const unbanned = new Map(nodes.filter((node) => node.status !== 'NodeStatusBanned').map((node) => [node.id, node]));
    if (versions.some((version) => RELEASED.includes(version.status) && unbanned.has(version.nodeId))) return 'public';
    if (caller === undefined || nodes.length === 0) return 'none';
    if (caller.isAdmin) return 'caller';
    for (const publisherId of new Set([...unbanned.values()].map((node) => node.publisherId))) {
      if ((await this.publishers.roleOf(publisherId, caller)) !== null) return 'caller';
    }
    return 'none';
  }
}
