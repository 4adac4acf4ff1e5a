import { Injectable, NotFoundException } from '@nestjs/common';
import { Principal } from '../auth/principal';
import { TransactionRunner } from '../database/transaction-runner';
import { PublishersService } from '../publishers/publishers.service';
import { NodeStatus, PUBLISHER_BANNED_DETAIL } from './entities/node.entity';
import { NodesRepository } from './nodes.repository';
import { NodesService } from './nodes.service';
import { VersionReviewService } from './review/version-review.service';

const deletedBy = (caller: Principal): string => (caller.isAdmin ? 'deleted by an admin' : 'deleted by its publisher');

/**
 * Taking things down (docs/api-rules.md §10): members delete their versions
 * and nodes, admins ban nodes and publishers. Each write locks the node
 * first, as every node write does.
 */
@Injectable()
export class NodeModerationService {
  constructor(
    private readonly nodes: NodesService,
    private readonly nodeRows: NodesRepository,
    private readonly publishers: PublishersService,
    private readonly reviews: VersionReviewService,
    private readonly tx: TransactionRunner,
  ) {}

  /** DELETE /publishers/{p}/nodes/{n}/versions/{v}: no longer listed, installable or latest; its archive stays for existing installs. */
  async deleteVersion(caller: Principal, publisherId: string, nodeId: string, versionId: string): Promise<void> {
    await this.tx.run(async (manager) => {
      const node = await this.nodes.lockPublisherNode(manager, caller, publisherId, nodeId);
      const version = await this.nodes.findWritableVersion(manager, caller, node, versionId);
      // Gone already, for admins too (who may see deleted versions): nothing to change.
      if (version.status === 'NodeVersionStatusDeleted') throw new NotFoundException(`version '${versionId}' of node '${node.id}' not found`);
      await this.reviews.setStatus(manager, version, { status: 'NodeVersionStatusDeleted', reason: deletedBy(caller), by: caller.id });
    });
  }

  /** DELETE /publishers/{p}/nodes/{n}: gone from reads (404); its id stays taken. */
  deleteNode(caller: Principal, publisherId: string, nodeId: string): Promise<void> {
    return this.setNodeStatus(caller, publisherId, nodeId, 'NodeStatusDeleted', deletedBy(caller));
  }

  /** POST /publishers/{p}/nodes/{n}/ban (admins). */
  banNode(admin: Principal, publisherId: string, nodeId: string): Promise<void> {
    return this.setNodeStatus(admin, publisherId, nodeId, 'NodeStatusBanned', 'banned by an admin');
  }

  /** POST /publishers/{p}/ban (admins): the publisher and every node of it; its members are refused on its routes. */
  async banPublisher(publisherId: string): Promise<void> {
    await this.tx.run(async (manager) => {
      await this.publishers.ban(manager, publisherId);
      await this.nodeRows.setPublisherNodesStatus(manager, publisherId, 'NodeStatusBanned', PUBLISHER_BANNED_DETAIL);
    });
  }

  private async setNodeStatus(caller: Principal, publisherId: string, nodeId: string, status: NodeStatus, detail: string): Promise<void> {
    await this.tx.run(async (manager) => {
      const node = await this.nodes.lockPublisherNode(manager, caller, publisherId, nodeId);
      // A deleted node is gone, for admins too (who may see it): neither deleted again nor banned.
      if (node.status === 'NodeStatusDeleted') throw new NotFoundException(`node '${nodeId}' not found for publisher '${publisherId}'`);
      await this.nodeRows.updateNode(manager, node.id, { status, statusDetail: detail, updatedAt: new Date() });
    });
  }
}
