import {
  BadRequestException,
  ConflictException,
  ForbiddenException,
  Injectable,
  NotFoundException,
  OnModuleInit,
} from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { parse as parseSemver } from 'semver';
import { EntityManager, FindOneOptions } from 'typeorm';
import { ArchivesService } from '../archives/archives.service';
import { Principal } from '../auth/principal';
import { adminOnlyFields } from '../common/validation/admin-only';
import { retryOnStaleRead, StaleReadError } from '../database/stale-read';
import { TransactionRunner } from '../database/transaction-runner';
import { PublisherRole } from '../publishers/entities/publisher-member.entity';
import { PublisherEntity } from '../publishers/entities/publisher.entity';
import { PublishersService } from '../publishers/publishers.service';
import {
  CreateNodeDto,
  InstallQueryDto,
  NODE_ID_PATTERN,
  NODE_ID_RULE,
  NodeDto,
  NodeFieldsDto,
  UpdateNodeDto,
} from './dto/node.dto';
import { CreateNodeVersionDto, NodeVersionDto, UpdateNodeVersionDto } from './dto/node-version.dto';
import { isPlainObject } from '../common/validation/plain-object';
import { MERGED_FIELDS, NodeField, NODE_FIELD_PROPERTIES, patchValue, toNodeDto, toNodeVersionDto } from './dto/node.mapper';
import { INSTALLABLE, NodeVersionEntity, NodeVersionStatus } from './entities/node-version.entity';
import { NodeEntity, NodeStatus, PUBLISHER_BANNED_DETAIL } from './entities/node.entity';
import { assertDecisionAllowed, assertReasonKept } from './review/review-decision';
import { StatusChange, VersionReviewsRepository } from './review/version-reviews.repository';
import { CompatibilityTarget, compatibilityTargetOf, pickCompatibleVersion } from './compatibility/compatible-version';
import { bySemverDescending, pickLatestVersion } from './latest-version';
import { DownloadCounter } from './download-counter';
import { NodesRepository } from './nodes.repository';

/** Fields only admins may change (marked `@AdminOnly()` on the DTO); others may resend the current value (GET → edit → PUT). */
const ADMIN_ONLY_NODE_FIELDS = adminOnlyFields(NodeFieldsDto);

/** Fields only admins may send (marked `@AdminOnly()`): a member's PUT of a version refuses any value of them. */
const ADMIN_ONLY_VERSION_FIELDS = adminOnlyFields(UpdateNodeVersionDto);

function describeUninstallable(version: NodeVersionEntity): string {
  return version.status === INSTALLABLE ? 'it has no archive' : `its status is ${version.status}`;
}

/** 403 for a banned node, except for admins (docs/api-rules.md §10). */
function assertNotBanned(node: Pick<NodeEntity, 'status'>, caller: Principal | undefined): void {
  if (node.status === 'NodeStatusBanned' && !caller?.isAdmin) throw new ForbiddenException('node banned');
}

/** A node that reads and reviews may see: 404 when unknown or deleted, 403 "node banned" but for admins (`caller`: none, for everyone). */
function assertVisible<T extends Pick<NodeEntity, 'status'>>(node: T | null, nodeId: string, caller: Principal | undefined): asserts node is T {
  if (!node || node.status === 'NodeStatusDeleted') throw new NotFoundException(`node '${nodeId}' not found`);
  assertNotBanned(node, caller);
}

/** 400 unless `version` is a semantic version without build metadata. */
export function assertValidVersionNumber(version: string): void {
  const parsed = parseSemver(version);
  if (parsed?.build.length) {
    // Build metadata takes no part in ordering, so 1.0.0+a and 1.0.0+b could not be told apart.
    throw new BadRequestException(`version '${version}' has build metadata (+...), which is not accepted`);
  }
  if (parsed?.version !== version) {
    throw new BadRequestException(`version '${version}' is not a valid semantic version (e.g. 1.2.3)`);
  }
}

/** A body `id` must name the path's node (ignoring case): 400 otherwise. */
function assertBodyIdMatches(nodeId: string, input: { id?: string }): void {
  if (input.id !== undefined && input.id.toLowerCase() !== nodeId.toLowerCase()) {
    throw new BadRequestException(`id '${input.id}' in the body does not match node '${nodeId}' in the path`);
  }
}

/** Equal as JSON, an absent value (a column a new node leaves NULL) being null. */
function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

@Injectable()
export class NodesService implements OnModuleInit {
  constructor(
    private readonly nodes: NodesRepository,
    private readonly archives: ArchivesService,
    private readonly publishers: PublishersService,
    private readonly tx: TransactionRunner,
    private readonly downloads: DownloadCounter,
    private readonly history: VersionReviewsRepository,
  ) {}

  /** Nodes keep a copy of their publisher's name (sort=publisher_name): a rename updates it in its transaction. */
  onModuleInit(): void {
    this.publishers.whenRenamed((manager, publisherId, name) => this.nodes.setPublisherName(manager, publisherId, name));
  }

  /** The public read: deleted nodes do not exist for it, banned ones are 403 but for admins. `origin`: the request's (ArchivesService.linksFor). */
  async get(nodeId: string, origin: string, caller?: Principal): Promise<NodeDto> {
    const node = await this.nodes.findNodeForDisplay(nodeId.toLowerCase());
    assertVisible(node, nodeId, caller);
    const [dto] = await this.toDtos([node], origin);
    return dto;
  }

  /**
   * The reply of a write that answers with the node: what the write left,
   * even a node an admin just deleted or banned. Read after the write
   * committed, in a statement of its own, so that it shows what every
   * transaction the write waited for committed (a join in the write's own
   * statement would show the rows of before the wait). `publisher`: as the
   * write's role check read it, a moment ago (one statement fewer).
   */
  async displayAfterWrite(nodeId: string, origin: string, publisher?: PublisherEntity): Promise<NodeDto> {
    const node = await this.nodes.findNodeForDisplay(nodeId.toLowerCase());
    if (!node) throw new NotFoundException(`node '${nodeId}' not found`);
    if (publisher?.id === node.publisherId) return toNodeDto(node, publisher, this.archives.linksFor(origin));
    const [dto] = await this.toDtos([node], origin);
    return dto;
  }

  /**
   * Sets each node's latestVersion to the one the target should install
   * (docs/api-rules.md §9.1), read in two queries for the whole page: what
   * the choice needs of every active version, then the chosen versions
   * that are not already the latest.
   */
  async chooseCompatibleVersions(nodes: NodeEntity[], target: CompatibilityTarget | undefined): Promise<void> {
    if (!target || nodes.length === 0) return;
    // Grouped once by node: a page of 1,000 nodes has a few thousand candidates.
    const candidatesByNode = new Map<string, NodeVersionEntity[]>();
    for (const candidate of await this.nodes.compatibilityCandidates(nodes.map((node) => node.id))) {
      const group = candidatesByNode.get(candidate.nodeId) ?? [];
      if (group.length === 0) candidatesByNode.set(candidate.nodeId, group);
      group.push(candidate);
    }
    const chosen = nodes.flatMap((node) => {
      const version = pickCompatibleVersion(candidatesByNode.get(node.id) ?? [], target);
      return version && version.id !== node.latestVersionId ? [{ node, versionId: version.id }] : [];
    });
    const versions = new Map((await this.nodes.versionsByIds(chosen.map(({ versionId }) => versionId))).map((version) => [version.id, version]));
    for (const { node, versionId } of chosen) node.latestVersion = versions.get(versionId) ?? node.latestVersion;
  }

  /**
   * GET /publishers/{publisherId}/nodes: the publisher's nodes that are not
   * deleted, newest first; banned ones only for its members and admins who
   * ask for them. 404 when the publisher does not exist.
   */
  async listPublisherNodes(publisherId: string, origin: string, caller: Principal | undefined, includeBanned: boolean): Promise<NodeDto[]> {
    await this.publishers.requirePublisher(publisherId);
    const mayListBanned =
      includeBanned && caller !== undefined && (caller.isAdmin || (await this.publishers.roleOf(publisherId, caller)) !== null);
    const statuses: NodeStatus[] = mayListBanned ? ['NodeStatusActive', 'NodeStatusBanned'] : ['NodeStatusActive'];
    return this.toDtos(await this.nodes.publisherNodes(publisherId, statuses), origin);
  }

  /** The nodes' replies, each with its publisher (asked of the publishers module once for all of them). */
  async toDtos(nodes: NodeEntity[], origin: string): Promise<NodeDto[]> {
    const links = this.archives.linksFor(origin);
    const publishers = new Map((await this.publishers.findByIds([...new Set(nodes.map((node) => node.publisherId))])).map((p) => [p.id, p]));
    return nodes.map((node) => {
      const publisher = publishers.get(node.publisherId);
      if (!publisher) throw new Error(`node ${node.id} names publisher ${node.publisherId}, which does not exist`);
      return toNodeDto(node, publisher, links);
    });
  }

  async create(caller: Principal, publisherId: string, input: CreateNodeDto, origin: string): Promise<NodeDto> {
    await this.tx.run(async (manager) => {
      const publisher = await this.publishers.requireNodeCreator(caller, publisherId, manager);
      if (await this.nodes.findNode(input.id.toLowerCase(), manager)) {
        throw new ConflictException(`node id '${input.id}' is already taken`);
      }
      await this.insertNewNode(manager, caller, publisher, input.id, input);
    });
    return this.displayAfterWrite(input.id, origin);
  }

  /**
   * The publishing CLI's node step (docs/api-rules.md §6), inside the caller's
   * transaction: the publisher's node with the given fields applied as a
   * merge-patch, created (with those fields) when it does not exist yet.
   * 409 when another publisher owns the id.
   */
  async upsertNode(
    manager: EntityManager,
    caller: Principal,
    publisherId: string,
    nodeId: string,
    input: UpdateNodeDto,
  ): Promise<NodeEntity> {
    assertBodyIdMatches(nodeId, input);
    const existing = await this.nodes.findNode(nodeId.toLowerCase(), manager);
    if (!existing) {
      const publisher = await this.publishers.requireNodeCreator(caller, publisherId, manager);
      // The id comes from the path here, not from a validated body: the same rule as POST /publishers/{p}/nodes.
      if (nodeId.length > 100 || !NODE_ID_PATTERN.test(nodeId)) {
        throw new BadRequestException(`node id '${nodeId}' must be ${NODE_ID_RULE}`);
      }
      return this.insertNewNode(manager, caller, publisher, nodeId, { ...input, name: input.name ?? nodeId });
    }
    if (existing.publisherId !== publisherId) {
      await this.publishers.requireNodeManager(caller, publisherId, manager);
      throw new ConflictException(`node id '${nodeId}' is already taken`);
    }
    return this.patchNode(manager, caller, publisherId, nodeId, input);
  }

  /**
   * A new node of the publisher with the given fields (admin-only ones only
   * for admins): active, or banned under a banned publisher (an admin's
   * node there), as the ban left its other nodes.
   */
  private async insertNewNode(
    manager: EntityManager,
    caller: Principal,
    publisher: PublisherEntity,
    nodeId: string,
    input: NodeFieldsDto & { name: string },
  ): Promise<NodeEntity> {
    const now = new Date();
    const banned = publisher.status === 'PublisherStatusBanned';
    const node = Object.assign(new NodeEntity(), {
      id: nodeId,
      normalizedId: nodeId.toLowerCase(),
      publisherId: publisher.id,
      publisherName: publisher.name,
      // Optional columns are left out: NULL until the patch below sets them.
      tags: [],
      tagsAdmin: [],
      supportedOs: [],
      supportedAccelerators: [],
      preemptedAppNodeNames: [],
      status: banned ? 'NodeStatusBanned' : 'NodeStatusActive',
      statusDetail: banned ? PUBLISHER_BANNED_DETAIL : null,
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
    return node;
  }

  /**
   * PUT /publishers/{publisherId}/nodes/{nodeId}: merge-patch of the node's
   * metadata. The checks run on an unlocked read; the patch is then one
   * UPDATE guarded by the status they saw (redone from the read if it
   * changed), so writers of a popular node hold its row only for that one
   * statement, and the reply is read after it. Admin-only fields a
   * non-admin resent unchanged are not written, so a concurrent admin
   * change to them is never undone. A patch that merges into a stored
   * object (translations) runs under the node's row lock instead: the merge
   * must start from the row as it is.
   */
  async update(caller: Principal, publisherId: string, nodeId: string, input: UpdateNodeDto, origin: string): Promise<NodeDto> {
    assertBodyIdMatches(nodeId, input);
    if ([...MERGED_FIELDS].some((field) => isPlainObject(input[field]))) {
      const patched = await this.tx.run((manager) => this.patchNode(manager, caller, publisherId, nodeId, input));
      return this.displayAfterWrite(patched.id, origin);
    }
    const { node, publisher } = await retryOnStaleRead(async () => {
      const { node: read, publisher } = await this.readPublisherNode(caller, publisherId, nodeId);
      this.assertAdminFieldsUnchanged(caller, read, input);
      const checked = { id: read.id, status: read.status };
      const changes = this.applyPatch(read, input, caller.isAdmin ? [] : ADMIN_ONLY_NODE_FIELDS);
      const written = await this.tx.runStatement((manager) =>
        this.nodes.updateNodeIfStatus(manager, checked, { ...changes, updatedAt: new Date() }),
      );
      if (!written) throw new StaleReadError(`node '${read.id}'`);
      return { node: read, publisher };
    });
    return this.displayAfterWrite(node.id, origin, publisher);
  }

  /** Locks the publisher's node and applies the merge-patch, inside the caller's transaction; returns the node as it now is. */
  private async patchNode(
    manager: EntityManager,
    caller: Principal,
    publisherId: string,
    nodeId: string,
    input: UpdateNodeDto,
  ): Promise<NodeEntity> {
    const node = await this.lockPublisherNode(manager, caller, publisherId, nodeId);
    this.assertAdminFieldsUnchanged(caller, node, input);
    const changes = this.applyPatch(node, input);
    node.updatedAt = new Date();
    await this.nodes.updateNode(manager, node.id, { ...changes, updatedAt: node.updatedAt });
    return node;
  }

  /** GET /nodes/{nodeId}/versions: deleted versions are listed to admins only, who ask for them by `statuses` (docs/api-rules.md §10). */
  async listVersions(nodeId: string, statuses: NodeVersionStatus[] | undefined, origin: string, caller?: Principal): Promise<NodeVersionDto[]> {
    const node = await this.requireVisibleNode(nodeId, caller);
    const listable = caller?.isAdmin ? statuses : statuses?.filter((status) => status !== 'NodeVersionStatusDeleted');
    if (listable?.length === 0) return [];
    const versions = await this.nodes.listVersions(node.id, listable);
    const links = this.archives.linksFor(origin);
    return versions.sort(bySemverDescending).map((version) => toNodeVersionDto(version, links));
  }

  /** GET /nodes/{nodeId}/versions/{versionId}: by id or semantic version; deleted versions do not exist for it. */
  async getVersion(nodeId: string, versionId: string, origin: string, caller?: Principal): Promise<NodeVersionDto> {
    return toNodeVersionDto(await this.requireVisibleVersion(nodeId, versionId, caller), this.archives.linksFor(origin));
  }

  /** The version as getVersion finds it (404, 403 alike), for other modules' reads. */
  async requireVisibleVersion(nodeId: string, versionId: string, caller: Principal | undefined): Promise<NodeVersionEntity> {
    const node = await this.requireVisibleNode(nodeId, caller);
    const version = await this.nodes.readVersion(node.id, versionId);
    if (!version || version.status === 'NodeVersionStatusDeleted') {
      throw new NotFoundException(`version '${versionId}' of node '${node.id}' not found`);
    }
    return version;
  }

  /**
   * GET /nodes/{nodeId}/install: the version to install (the latest, chosen
   * for the caller's app version and form factor when given, or the one
   * asked for) with its downloadUrl, counting one download. 404 for
   * anything that cannot be installed, so a client has one case to handle.
   */
  async install(
    nodeId: string,
    query: InstallQueryDto,
    origin: string,
    caller: Principal | undefined,
    { countDownload }: { countDownload: boolean },
  ): Promise<NodeVersionDto> {
    const requested = query.version;
    const node = await this.nodes.findNodeForDisplay(nodeId.toLowerCase());
    assertVisible(node, nodeId, caller);
    if (requested === undefined) {
      await this.chooseCompatibleVersions([node], compatibilityTargetOf(query));
    }
    const version =
      requested === undefined ? node.latestVersion : await this.nodes.readVersion(node.id, requested);
    // A deleted version does not exist for public reads (getVersion), so not here either.
    if (!version || version.status === 'NodeVersionStatusDeleted') {
      throw new NotFoundException(
        requested === undefined ? `node '${node.id}' has no installable version` : `version '${requested}' of node '${node.id}' not found`,
      );
    }
    if (version.status !== INSTALLABLE || (version.archiveSha256 === null && !version.downloadUrl)) {
      throw new NotFoundException(`version '${version.version}' of node '${node.id}' is not installable (${describeUninstallable(version)})`);
    }
    if (countDownload) this.downloads.count(node.id);
    return toNodeVersionDto(version, this.archives.linksFor(origin));
  }

  /** A node that public reads may show: 404 when unknown or deleted, 403 when banned (but for admins). */
  async requireVisibleNode(nodeId: string, caller?: Principal): Promise<NodeEntity> {
    const node = await this.nodes.findNode(nodeId.toLowerCase());
    assertVisible(node, nodeId, caller);
    return node;
  }

  createVersion(
    caller: Principal,
    publisherId: string,
    nodeId: string,
    input: CreateNodeVersionDto,
    origin: string,
  ): Promise<NodeVersionDto> {
    assertValidVersionNumber(input.version);
    if (input.downloadUrl !== undefined && !caller.isAdmin) {
      // An archive elsewhere would install unchecked (docs/api-rules.md §10): members upload theirs, admins may point at one.
      throw new ForbiddenException(`only admins may set 'downloadUrl'; upload the archive to PUT …/versions/${input.version}/archive`);
    }
    return this.tx.run(async (manager) => {
      const node = await this.lockPublisherNode(manager, caller, publisherId, nodeId);
      const version = await this.addVersion(manager, node, input, { status: 'NodeVersionStatusActive', reason: null, by: caller.id });
      return toNodeVersionDto(version, this.archives.linksFor(origin));
    });
  }

  /**
   * Inserts a version of a node locked by the caller's transaction (409 when
   * the node already has that version) with its first status, which its
   * history records, and records the change on the node. The version number
   * must have passed assertValidVersionNumber.
   */
  async addVersion(manager: EntityManager, node: NodeEntity, input: CreateNodeVersionDto, initial: StatusChange): Promise<NodeVersionEntity> {
    const { status } = initial;
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
        archiveSha256: null,
        status,
        statusReason: initial.reason,
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
    await this.history.appendStatusChange(manager, version, initial, version.createdAt);
    // A new version has no change time of its own until it is edited: the node's records it for `timestamp`.
    const latest = status === 'NodeVersionStatusActive' ? { latestVersionId: await this.latestVersionId(manager, node.id) } : {};
    await this.nodes.updateNode(manager, node.id, { updatedAt: version.createdAt, ...latest });
    return version;
  }

  /**
   * PUT /publishers/{publisherId}/nodes/{nodeId}/versions/{versionId}:
   * changelog, deprecation and (admins) moderation. The checks run on unlocked reads; the version is then written with its
   * change time, guarded by the statuses the checks saw, its own and its
   * node's (redone from the reads if one changed): one statement, which
   * writes no node row, so editing a changelog never waits for the node's
   * lock. A status or deprecation change also moves the latest version: it
   * locks the node first and recomputes it, in a transaction.
   */
  async updateVersion(
    caller: Principal,
    publisherId: string,
    nodeId: string,
    versionId: string,
    input: UpdateNodeVersionDto,
    origin: string,
  ): Promise<NodeVersionDto> {
    const changes: Partial<NodeVersionEntity> = {};
    if (input.changelog !== undefined) changes.changelog = input.changelog;
    if (input.deprecated !== undefined) changes.deprecated = input.deprecated;
    if (input.status !== undefined) changes.status = input.status;
    if (input.status_reason !== undefined) changes.statusReason = input.status_reason;
    // Only status and deprecation take part in the latest-version rule; a changelog edit cannot move it.
    const latestMayMove = changes.deprecated !== undefined || changes.status !== undefined;
    const version = await retryOnStaleRead(async () => {
      // The checks below are lockPublisherNode's and findWritableVersion's, in their order.
      const { node } = await this.readPublisherNode(caller, publisherId, nodeId);
      const read = this.writableVersion(caller, node, versionId, await this.nodes.findVersion(this.tx.reads, node.id, versionId));
      const adminFields = caller.isAdmin ? [] : ADMIN_ONLY_VERSION_FIELDS.filter((field) => input[field] !== undefined);
      if (adminFields.length > 0) throw new ForbiddenException(adminFields.map((field) => `only admins may set '${field}'`).join('; '));
      if (changes.status !== undefined && changes.status !== read.status) {
        // A reason explains the status it came with: a new status without one clears the old (a lifted ban's, say).
        if (input.status_reason === undefined) changes.statusReason = null;
        assertDecisionAllowed(read, changes.status, changes.statusReason ?? null, await this.history.findReview(read.id));
      } else if (changes.statusReason !== undefined) {
        assertReasonKept(read, changes.statusReason);
      }
      // A PUT that sets nothing changes nothing, not even the version's change time.
      if (Object.keys(changes).length === 0) return read;
      const write = async (manager: EntityManager) => {
        // Moving the latest version reads the versions under the node's lock, taken first (the lock order of
        // every version write: node, then version); a changelog edit writes the version's row alone.
        if (latestMayMove) await this.lockNode(manager, node);
        const at = new Date();
        const written = await this.nodes.updateVersionIfStatus(manager, node, read, changes, at);
        if (!written) throw new StaleReadError(`version '${read.version}' of node '${node.id}'`);
        if (written.status !== read.status) {
          await this.history.appendStatusChange(manager, written, { status: written.status, reason: written.statusReason, by: caller.id }, at);
        }
        if (latestMayMove) await this.recomputeLatestVersion(manager, node.id);
        return written;
      };
      return latestMayMove ? this.tx.run(write) : this.tx.runStatement(write);
    });
    return toNodeVersionDto(version, this.archives.linksFor(origin));
  }

  /**
   * A version of the publisher's node, in any status, for a read that only
   * its members and admins may make (its review record, which says why it
   * was banned or deleted too): lockPublisherNode's checks, without a lock,
   * and a banned node's members may read it (every decision is explained
   * to the publisher; a banned publisher's members are still refused).
   */
  async memberVersion(caller: Principal, publisherId: string, nodeId: string, versionId: string): Promise<NodeVersionEntity> {
    const { node } = await this.readPublisherNode(caller, publisherId, nodeId, { bannedReadable: true });
    const version = await this.nodes.findVersion(this.tx.reads, node.id, versionId);
    if (!version) throw new NotFoundException(`version '${versionId}' of node '${node.id}' not found`);
    return version;
  }

  /** The node, locked for the rest of the caller's transaction, for an admin's write: 404 only when it does not exist. */
  async lockNodeForAdmin(manager: EntityManager, nodeId: string): Promise<NodeEntity> {
    const node = await this.nodes.findNode(nodeId.toLowerCase(), manager, this.tx.lockForUpdate());
    if (!node) throw new NotFoundException(`node '${nodeId}' not found`);
    return node;
  }

  /**
   * The version of a node locked by lockPublisherNode that the caller may
   * write: 404 when unknown or (for non-admins) deleted, 403 when banned.
   */
  async findWritableVersion(
    manager: EntityManager,
    caller: Principal,
    node: NodeEntity,
    versionId: string,
  ): Promise<NodeVersionEntity> {
    return this.writableVersion(caller, node, versionId, await this.nodes.findVersion(manager, node.id, versionId));
  }

  /** findWritableVersion's checks, on the version read for `versionId` (null: none). */
  private writableVersion(caller: Principal, node: Pick<NodeEntity, 'id'>, versionId: string, version: NodeVersionEntity | null): NodeVersionEntity {
    if (!version || (version.status === 'NodeVersionStatusDeleted' && !caller.isAdmin)) {
      throw new NotFoundException(`version '${versionId}' of node '${node.id}' not found`);
    }
    if (version.status === 'NodeVersionStatusBanned' && !caller.isAdmin) {
      throw new ForbiddenException(`version '${version.version}' of node '${node.id}' is banned`);
    }
    return version;
  }

  /**
   * The node a review is for, read and locked for the rest of the caller's
   * transaction (PostgreSQL; SQLite serialises writers): 404 when unknown or
   * deleted, 403 when banned. Checked under the lock, so the status holds
   * until the commit.
   */
  async lockReviewableNode(manager: EntityManager, nodeId: string): Promise<NodeEntity> {
    const node = await this.nodes.findNode(nodeId.toLowerCase(), manager, this.tx.lockForUpdate());
    // Nobody reviews a banned node, admins included.
    assertVisible(node, nodeId, undefined);
    return node;
  }

  /** Sets the rating (the mean of its reviews, from the reviews module) of a node the caller's transaction has locked. */
  setRating(manager: EntityManager, nodeId: string, rating: number): Promise<void> {
    return this.nodes.updateNode(manager, nodeId, { rating });
  }

  /** Locks a node for the rest of the caller's transaction (PostgreSQL; SQLite serialises writers). */
  private lockNode(manager: EntityManager, node: Pick<NodeEntity, 'normalizedId'>): Promise<void> {
    return this.nodes.lockNodeRow(manager, node.normalizedId, this.tx.lockForUpdate().lock);
  }

  /**
   * The publisher's node (its own row), locked for the rest of the
   * transaction. 404 when the publisher or node
   * is unknown, or the node is another publisher's (never revealed); 403 when
   * the caller may not manage the publisher. Deleted nodes are 404 and banned
   * nodes 403 for everyone but admins.
   */
  async lockPublisherNode(manager: EntityManager, caller: Principal, publisherId: string, nodeId: string): Promise<NodeEntity> {
    return this.checkedPublisherNode(manager, caller, publisherId, nodeId, await this.nodeWithRole(manager, caller, nodeId, this.tx.lockForUpdate()));
  }

  /**
   * lockPublisherNode's checks on an unlocked read, for a write that guards
   * its statement by what it read instead (stale-read.ts); with the
   * publisher as the role check read it.
   */
  private async readPublisherNode(
    caller: Principal,
    publisherId: string,
    nodeId: string,
    options: { bannedReadable?: boolean } = {},
  ): Promise<{ node: NodeEntity; publisher?: PublisherEntity }> {
    const found = await this.nodeWithRole(this.tx.reads, caller, nodeId, {});
    const node = await this.checkedPublisherNode(this.tx.reads, caller, publisherId, nodeId, found, options);
    return { node, publisher: found?.publisher };
  }

  /** The node (read with `lock`), the caller's role in its publisher (null when not a member) and the publisher as read then; null when no such node. */
  private async nodeWithRole(
    manager: EntityManager,
    caller: Principal,
    nodeId: string,
    lock: Pick<FindOneOptions, 'lock'>,
  ): Promise<{ node: NodeEntity; role: PublisherRole | null; publisher?: PublisherEntity } | null> {
    const node = await this.nodes.findNode(nodeId.toLowerCase(), manager, lock);
    if (!node) return null;
    const membership = await this.publishers.membership(node.publisherId, caller, manager);
    return { node, role: membership?.role ?? null, publisher: membership?.publisher };
  }

  /** lockPublisherNode's checks, on what was read of the node and the caller's role in its publisher (null: no node). */
  private async checkedPublisherNode<N extends Pick<NodeEntity, 'id' | 'publisherId' | 'status'>>(
    manager: EntityManager,
    caller: Principal,
    publisherId: string,
    nodeId: string,
    found: { node: N; role: PublisherRole | null } | null,
    { bannedReadable = false } = {},
  ): Promise<N> {
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
    if (!bannedReadable) assertNotBanned(node, caller);
    return node;
  }

  private assertAdminFieldsUnchanged(caller: Principal, node: NodeEntity, input: NodeFieldsDto): void {
    if (caller.isAdmin) return;
    const changed = ADMIN_ONLY_NODE_FIELDS.filter((field) => {
      const value = input[field];
      const current = node[NODE_FIELD_PROPERTIES[field]];
      return value !== undefined && !sameValue(patchValue(field, value, current), current);
    });
    // Each field named, as validation names every problem (CONTRACT §1).
    if (changed.length > 0) throw new ForbiddenException(changed.map((field) => `only admins may change '${field}'`).join('; '));
  }

  /** Applies the merge patch to the entity; returns the columns it set (leaving out the `unwritten` fields). */
  private applyPatch(node: NodeEntity, input: NodeFieldsDto & { name?: string }, unwritten: readonly NodeField[] = []): Partial<NodeEntity> {
    const changes: Partial<NodeEntity> = {};
    for (const [field, column] of Object.entries(NODE_FIELD_PROPERTIES) as [NodeField, keyof NodeEntity][]) {
      const value = input[field];
      if (value !== undefined && !unwritten.includes(field)) {
        Object.assign(changes, { [column]: patchValue(field, value, node[column]) });
      }
    }
    // A detail explains the status it came with: a new status without one clears the old (a lifted ban's, say).
    if (changes.status !== undefined && changes.status !== node.status && changes.statusDetail === undefined) changes.statusDetail = null;
    Object.assign(node, changes);
    return changes;
  }

  /**
   * Sets the node's latest version from its versions as they now are, after a
   * version write that may move it; the caller holds the node's row lock. The
   * node's own change time stays: the version's, which the write set, counts
   * for `timestamp` and `last_updated` (docs/decisions.md, "`timestamp`").
   */
  async recomputeLatestVersion(manager: EntityManager, nodeId: string): Promise<void> {
    await this.nodes.updateNode(manager, nodeId, { latestVersionId: await this.latestVersionId(manager, nodeId) });
  }

  private async latestVersionId(manager: EntityManager, nodeId: string): Promise<string | null> {
    return pickLatestVersion(await this.nodes.versionCandidates(manager, nodeId))?.id ?? null;
  }
}
