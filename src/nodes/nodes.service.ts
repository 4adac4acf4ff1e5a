import {
  BadRequestException,
  ConflictException,
  ForbiddenException,
  Injectable,
  NotFoundException,
} from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { parse as parseSemver } from 'semver';
import { EntityManager } from 'typeorm';
import { Principal } from '../auth/principal';
import { totalPages } from '../common/pagination/page-query.dto';
import { TransactionRunner } from '../database/transaction-runner';
import { PublishersService } from '../publishers/publishers.service';
import { CreateNodeDto, NodeDto, NodeFieldsDto, NodeListDto, NodeListQueryDto, UpdateNodeDto } from './dto/node.dto';
import { CreateNodeVersionDto, NodeVersionDto, UpdateNodeVersionDto } from './dto/node-version.dto';
import { toNodeDto, toNodeVersionDto } from './dto/node.mapper';
import { NodeVersionEntity } from './entities/node-version.entity';
import { NodeEntity } from './entities/node.entity';
import { bySemverDescending, pickLatestVersion } from './latest-version';
import { NodesRepository } from './nodes.repository';

type NodeField = keyof NodeFieldsDto | 'name';

/** Request field → entity property, for every field a publisher may write. */
const NODE_COLUMNS: Record<NodeField, keyof NodeEntity> = {
  name: 'name',
  description: 'description',
  author: 'author',
  category: 'category',
  license: 'license',
  icon: 'icon',
  banner_url: 'bannerUrl',
  repository: 'repository',
  tags: 'tags',
  supported_os: 'supportedOs',
  supported_accelerators: 'supportedAccelerators',
  supported_app_version: 'supportedAppVersion',
  supported_app_frontend_version: 'supportedAppFrontendVersion',
  translations: 'translations',
  status: 'status',
  status_detail: 'statusDetail',
  tags_admin: 'tagsAdmin',
  search_ranking: 'searchRanking',
  preempted_app_node_names: 'preemptedAppNodeNames',
};

const ARRAY_FIELDS = new Set<NodeField>([
  'tags',
  'supported_os',
  'supported_accelerators',
  'tags_admin',
  'preempted_app_node_names',
]);

/** Fields only admins may change; others may resend the current value (GET → edit → PUT). */
const ADMIN_ONLY_NODE_FIELDS: NodeField[] = [
  'status',
  'status_detail',
  'tags_admin',
  'search_ranking',
  'preempted_app_node_names',
];

const ADMIN_ONLY_VERSION_FIELDS = ['status', 'status_reason'] as const;

/** The value a merge-patch field sets: null clears (arrays become empty). */
function patchValue(field: NodeField, value: unknown): unknown {
  return value === null && ARRAY_FIELDS.has(field) ? [] : value;
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

@Injectable()
export class NodesService {
  constructor(
    private readonly nodes: NodesRepository,
    private readonly publishers: PublishersService,
    private readonly tx: TransactionRunner,
  ) {}

  /** The public read: deleted nodes do not exist for it. */
  get(nodeId: string): Promise<NodeDto> {
    return this.display(nodeId, { includeDeleted: false });
  }

  /** The node as every route shows it; writes show what they wrote, even a node an admin just deleted. */
  private async display(nodeId: string, { includeDeleted }: { includeDeleted: boolean }): Promise<NodeDto> {
    const node = await this.nodes.findNodeForDisplay(nodeId.toLowerCase());
    if (!node || (node.status === 'NodeStatusDeleted' && !includeDeleted)) {
      throw new NotFoundException(`node '${nodeId}' not found`);
    }
    return toNodeDto(node);
  }

  async list(query: NodeListQueryDto): Promise<NodeListDto> {
    const [nodes, total] = await this.nodes.listActiveNodes({
      search: query.search || undefined,
      offset: (query.page - 1) * query.limit,
      limit: query.limit,
    });
    return {
      total,
      nodes: nodes.map(toNodeDto),
      page: query.page,
      limit: query.limit,
      totalPages: totalPages(total, query.limit),
    };
  }

  async create(caller: Principal, publisherId: string, input: CreateNodeDto): Promise<NodeDto> {
    await this.tx.run(async (manager) => {
      await this.publishers.requireNodeManager(caller, publisherId, manager);
      if (await this.nodes.findNode(input.id.toLowerCase(), manager)) {
        throw new ConflictException(`node id '${input.id}' is already taken`);
      }
      const now = new Date();
      const node = Object.assign(new NodeEntity(), {
        id: input.id,
        normalizedId: input.id.toLowerCase(),
        publisherId,
        description: null,
        author: null,
        category: null,
        license: null,
        icon: null,
        bannerUrl: null,
        repository: null,
        tags: [],
        tagsAdmin: [],
        supportedOs: [],
        supportedAccelerators: [],
        supportedAppVersion: null,
        supportedAppFrontendVersion: null,
        preemptedAppNodeNames: [],
        translations: null,
        status: 'NodeStatusActive',
        statusDetail: null,
        searchRanking: 0,
        downloads: 0,
        githubStars: 0,
        rating: 0,
        latestVersionId: null,
        createdAt: now,
        updatedAt: now,
      });
      this.assertAdminFieldsUnchanged(caller, node, input);
      this.applyPatch(node, input);
      await this.nodes.insertNode(manager, node);
    });
    return this.display(input.id, { includeDeleted: true });
  }

  /** PUT /publishers/{publisherId}/nodes/{nodeId}: merge-patch of the node's metadata. */
  async update(caller: Principal, publisherId: string, nodeId: string, input: UpdateNodeDto): Promise<NodeDto> {
    if (input.id !== undefined && input.id.toLowerCase() !== nodeId.toLowerCase()) {
      throw new BadRequestException(`id '${input.id}' in the body does not match node '${nodeId}' in the path`);
    }
    const node = await this.tx.run(async (manager) => {
      const locked = await this.lockPublisherNode(manager, caller, publisherId, nodeId);
      this.assertAdminFieldsUnchanged(caller, locked, input);
      const changes = this.applyPatch(locked, input);
      locked.updatedAt = new Date();
      await this.nodes.updateNode(manager, locked.id, { ...changes, updatedAt: locked.updatedAt });
      return locked;
    });
    // The row as locked plus this update is what the transaction committed: no need to read it back.
    return toNodeDto(node);
  }

  async listVersions(nodeId: string): Promise<NodeVersionDto[]> {
    const node = await this.nodes.findNode(nodeId.toLowerCase());
    if (!node || node.status === 'NodeStatusDeleted') {
      throw new NotFoundException(`node '${nodeId}' not found`);
    }
    const versions = await this.nodes.listVisibleVersions(node.id);
    return versions.sort(bySemverDescending).map(toNodeVersionDto);
  }

  createVersion(
    caller: Principal,
    publisherId: string,
    nodeId: string,
    input: CreateNodeVersionDto,
  ): Promise<NodeVersionDto> {
    const parsed = parseSemver(input.version);
    if (parsed?.build.length) {
      // Build metadata takes no part in ordering, so 1.0.0+a and 1.0.0+b could not be told apart.
      throw new BadRequestException(`version '${input.version}' has build metadata (+...), which is not accepted`);
    }
    if (parsed?.version !== input.version) {
      throw new BadRequestException(`version '${input.version}' is not a valid semantic version (e.g. 1.2.3)`);
    }
    return this.tx.run(async (manager) => {
      const node = await this.lockPublisherNode(manager, caller, publisherId, nodeId);
      if (await this.nodes.findVersionByNumber(manager, node.id, input.version)) {
        throw new ConflictException(`node '${node.id}' already has version '${input.version}'`);
      }
      const version = await this.nodes.insertVersion(
        manager,
        Object.assign(new NodeVersionEntity(), {
          id: randomUUID(),
          nodeId: node.id,
          version: input.version,
          changelog: input.changelog ?? null,
          dependencies: input.dependencies ?? [],
          deprecated: false,
          downloadUrl: input.downloadUrl ?? null,
          status: 'NodeVersionStatusActive',
          statusReason: null,
          appNodeExtractStatus: null,
          supportedOs: input.supported_os ?? [],
          supportedAccelerators: input.supported_accelerators ?? [],
          supportedAppVersion: input.supported_app_version ?? null,
          supportedAppFrontendVersion: input.supported_app_frontend_version ?? null,
          tags: input.tags ?? [],
          tagsAdmin: [],
          createdAt: new Date(),
        }),
      );
      await this.refreshLatestVersion(manager, node.id);
      return toNodeVersionDto(version);
    });
  }

  /** PUT /publishers/{publisherId}/nodes/{nodeId}/versions/{versionId}: changelog, deprecation and (admins) moderation. */
  updateVersion(
    caller: Principal,
    publisherId: string,
    nodeId: string,
    versionId: string,
    input: UpdateNodeVersionDto,
  ): Promise<NodeVersionDto> {
    return this.tx.run(async (manager) => {
      const node = await this.lockPublisherNode(manager, caller, publisherId, nodeId);
      const adminField = ADMIN_ONLY_VERSION_FIELDS.find((field) => input[field] !== undefined);
      if (adminField && !caller.isAdmin) {
        throw new ForbiddenException(`only admins may set '${adminField}'`);
      }
      const version = await this.nodes.findVersion(manager, node.id, versionId);
      if (!version || (version.status === 'NodeVersionStatusDeleted' && !caller.isAdmin)) {
        throw new NotFoundException(`version '${versionId}' of node '${node.id}' not found`);
      }
      if (version.status === 'NodeVersionStatusBanned' && !caller.isAdmin) {
        throw new ForbiddenException(`version '${version.version}' of node '${node.id}' is banned`);
      }
      const changes: Partial<NodeVersionEntity> = {};
      if (input.changelog !== undefined) changes.changelog = input.changelog;
      if (input.deprecated !== undefined) changes.deprecated = input.deprecated;
      if (input.status !== undefined) changes.status = input.status;
      if (input.status_reason !== undefined) changes.statusReason = input.status_reason;
      Object.assign(version, changes);
      await this.nodes.updateVersion(manager, version.id, changes);
      // Only status and deprecation take part in the latest-version rule; a changelog edit cannot move it.
      if (changes.deprecated !== undefined || changes.status !== undefined) {
        await this.refreshLatestVersion(manager, node.id);
      }
      return toNodeVersionDto(version);
    });
  }

  /**
   * Locks a node that may receive a review: 404 when unknown or deleted, 403
   * when banned. Meant for the reviews module, inside its transaction.
   */
  async lockReviewableNode(manager: EntityManager, nodeId: string): Promise<NodeEntity> {
    const node = await this.nodes.findNodeForDisplay(nodeId.toLowerCase(), manager, this.tx.lockForUpdate());
    if (!node || node.status === 'NodeStatusDeleted') {
      throw new NotFoundException(`node '${nodeId}' not found`);
    }
    if (node.status === 'NodeStatusBanned') {
      throw new ForbiddenException(`node '${node.id}' is banned`);
    }
    return node;
  }

  /** Sets the rating of a node from lockReviewableNode; returns the node as it now is, for the reply. */
  async setRating(manager: EntityManager, node: NodeEntity, rating: number): Promise<NodeDto> {
    await this.nodes.setRating(manager, node.id, rating);
    node.rating = rating;
    return toNodeDto(node);
  }

  /**
   * The publisher's node with its publisher and latest version, locked for
   * the rest of the transaction, in one query. 404 when the publisher or node
   * is unknown, or the node is another publisher's (never revealed); 403 when
   * the caller may not manage the publisher. Deleted nodes are 404 and banned
   * nodes 403 for everyone but admins.
   */
  private async lockPublisherNode(
    manager: EntityManager,
    caller: Principal,
    publisherId: string,
    nodeId: string,
  ): Promise<NodeEntity> {
    const found = await this.nodes.findNodeWithRole(manager, nodeId.toLowerCase(), caller.id, this.tx.lockForUpdate());
    if (!found || found.node.publisherId !== publisherId) {
      // As precise as when the publisher is checked first: 404 for an unknown publisher, 403 for one the caller may not manage.
      await this.publishers.requireNodeManager(caller, publisherId, manager);
      throw new NotFoundException(`node '${nodeId}' not found for publisher '${publisherId}'`);
    }
    const { node, role } = found;
    this.publishers.assertRole(caller, publisherId, role, 'member');
    if (node.status === 'NodeStatusDeleted' && !caller.isAdmin) {
      throw new NotFoundException(`node '${nodeId}' not found for publisher '${publisherId}'`);
    }
    if (node.status === 'NodeStatusBanned' && !caller.isAdmin) {
      throw new ForbiddenException(`node '${node.id}' is banned`);
    }
    return node;
  }

  private assertAdminFieldsUnchanged(caller: Principal, node: NodeEntity, input: NodeFieldsDto): void {
    if (caller.isAdmin) return;
    for (const field of ADMIN_ONLY_NODE_FIELDS) {
      const value = input[field as keyof NodeFieldsDto];
      if (value !== undefined && !sameValue(patchValue(field, value), node[NODE_COLUMNS[field]])) {
        throw new ForbiddenException(`only admins may change '${field}'`);
      }
    }
  }

  /** Applies the merge patch to the entity; returns the columns it set. */
  private applyPatch(node: NodeEntity, input: NodeFieldsDto & { name?: string }): Partial<NodeEntity> {
    const changes: Partial<NodeEntity> = {};
    for (const [field, column] of Object.entries(NODE_COLUMNS) as [NodeField, keyof NodeEntity][]) {
      const value = input[field];
      if (value !== undefined) {
        Object.assign(changes, { [column]: patchValue(field, value) });
      }
    }
    Object.assign(node, changes);
    return changes;
  }

  private async refreshLatestVersion(manager: EntityManager, nodeId: string): Promise<void> {
    const latest = pickLatestVersion(await this.nodes.versionCandidates(manager, nodeId));
    await this.nodes.setLatestVersion(manager, nodeId, latest?.id ?? null);
  }
}
