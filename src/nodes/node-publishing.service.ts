import { ConflictException, ForbiddenException, Injectable, UnauthorizedException } from '@nestjs/common';
import { IncomingMessage } from 'node:http';
import { EntityManager } from 'typeorm';
import { ArchivesService } from '../archives/archives.service';
import { StoredArchive } from '../archives/archive-storage';
import { Principal } from '../auth/principal';
import { TransactionRunner } from '../database/transaction-runner';
import { UsersService } from '../users/users.service';
import { PublishersService } from '../publishers/publishers.service';
import { EXTRACT_PENDING } from './comfy-nodes/extract-status';
import { ArchiveReview } from './review/archive-review';
import { checksBlock } from './review/review-decision';
import { CreateNodeVersionDto, NodeVersionDto } from './dto/node-version.dto';
import { toNodeVersionDto } from './dto/node.mapper';
import { PublishedNodeVersionDto, PublishNodeVersionDto } from './dto/publish.dto';
import { NodeVersionEntity, PENDING } from './entities/node-version.entity';
import { NodesRepository } from './nodes.repository';
import { assertValidVersionNumber, NodesService } from './nodes.service';
import { VersionReviewsRepository } from './review/version-reviews.repository';
import { UploadSignature, UploadUrls } from './upload-urls';

/** Why a version the CLI published is not active yet; then why one with an archive is not (docs/api-rules.md §10). */
const AWAITING_ARCHIVE = 'waiting for its archive (PUT it to the signedUrl)';
const AWAITING_CHECKS = 'its archive is being checked';

/** The 401 of a publish whose body token is not a live token. */
export const INVALID_BODY_TOKEN = 'invalid or revoked personal_access_token';

/**
 * Publishing versions with archives (docs/api-rules.md §6): the public registry
 * CLI's publish (body token, node upsert, a pending version and a signed
 * upload URL), the signed upload that makes the version installable, and a
 * member's archive upload with a bearer token. Archive bodies are streamed to
 * storage outside any transaction; the version is then changed in a short
 * one that checks again what the upload was allowed on.
 */
@Injectable()
export class NodePublishingService {
  constructor(
    private readonly nodes: NodesService,
    private readonly publishers: PublishersService,
    private readonly repository: NodesRepository,
    private readonly users: UsersService,
    private readonly archives: ArchivesService,
    private readonly uploadUrls: UploadUrls,
    private readonly tx: TransactionRunner,
    private readonly review: ArchiveReview,
    private readonly history: VersionReviewsRepository,
  ) {}

  /** POST /publishers/{p}/nodes/{n}/versions in either of its two forms. */
  createVersion(
    caller: Principal | undefined,
    publisherId: string,
    nodeId: string,
    body: CreateNodeVersionDto | PublishNodeVersionDto,
    origin: string,
  ): Promise<NodeVersionDto | PublishedNodeVersionDto> {
    if (body instanceof PublishNodeVersionDto) {
      return this.publishFromCli(caller, publisherId, nodeId, body, origin);
    }
    if (!caller) {
      throw new UnauthorizedException('missing bearer token (Authorization: Bearer <token>, or personal_access_token in the body)');
    }
    return this.nodes.createVersion(caller, publisherId, nodeId, body, origin);
  }

  /** PUT /uploads/{versionId}: the one upload a signed URL allows. */
  async uploadSigned(versionId: string, signature: UploadSignature, req: IncomingMessage, origin: string): Promise<NodeVersionDto> {
    await this.uploadUrls.verify(versionId, signature);
    // Refused before a byte of the body is read, in the usual case of a URL already used.
    await this.tx.run(async (manager) => this.requirePendingVersion(manager, versionId));
    const archive = await this.archives.receive(req);
    return this.attachArchive((manager) => this.requirePendingVersion(manager, versionId), archive, origin);
  }

  /** PUT /publishers/{p}/nodes/{n}/versions/{v}/archive: a member adds (or replaces) a version's archive. */
  uploadAsMember(
    caller: Principal,
    publisherId: string,
    nodeId: string,
    versionId: string,
    req: IncomingMessage,
    origin: string,
  ): Promise<NodeVersionDto> {
    return this.attachAsMember(caller, publisherId, nodeId, versionId, () => this.archives.receive(req), origin);
  }

  /** The same from bytes in hand (the CLI's demo). */
  addArchive(caller: Principal, publisherId: string, nodeId: string, versionId: string, zip: Buffer, origin: string): Promise<NodeVersionDto> {
    return this.attachAsMember(caller, publisherId, nodeId, versionId, () => this.archives.store(zip), origin);
  }

  private async attachAsMember(
    caller: Principal,
    publisherId: string,
    nodeId: string,
    versionId: string,
    receive: () => Promise<StoredArchive>,
    origin: string,
  ): Promise<NodeVersionDto> {
    const lockWritableVersion = async (manager: EntityManager) => {
      const node = await this.nodes.lockPublisherNode(manager, caller, publisherId, nodeId);
      const version = await this.nodes.findWritableVersion(manager, caller, node, versionId);
      // A new archive would start the version's review anew: never for a version its checks blocked (final until a new
      // version replaces it, whoever uploads and whatever its status since), nor a deleted one (final too); a flag
      // waits for an admin, so a member's upload cannot clear it.
      if (version.status === 'NodeVersionStatusDeleted') {
        throw new ConflictException(`version '${version.version}' is deleted: publish a new version`);
      }
      const block = checksBlock(version, await this.history.findReview(version.id, manager));
      if (block !== undefined) {
        throw new ConflictException(`version '${version.version}' was blocked by its checks (${block}): publish a new version`);
      }
      if (version.status === 'NodeVersionStatusFlagged' && !caller.isAdmin) {
        throw new ConflictException(`version '${version.version}' is flagged (${version.statusReason ?? 'see its review'}): publish a new version`);
      }
      return version;
    };
    // Every refusal (403/404) before the body is read; checked again once it is stored.
    await this.tx.run(lockWritableVersion);
    return this.attachArchive(lockWritableVersion, await receive(), origin);
  }

  /** The CLI form: the body token authenticates (a bearer header, when there is no body token). */
  private async publishFromCli(
    bearer: Principal | undefined,
    publisherId: string,
    nodeId: string,
    body: PublishNodeVersionDto,
    origin: string,
  ): Promise<PublishedNodeVersionDto> {
    const token = body.personal_access_token;
    const caller = token ? await this.users.authenticate(token) : bearer;
    if (!caller) {
      throw new UnauthorizedException(token ? INVALID_BODY_TOKEN : 'missing personal_access_token');
    }
    assertValidVersionNumber(body.node_version.version);
    const version = await this.tx.runCreatingIfMissing(async (manager) => {
      const node = await this.nodes.upsertNode(manager, caller, publisherId, nodeId, body.node);
      return this.nodes.addVersion(manager, node, body.node_version, { status: PENDING, reason: AWAITING_ARCHIVE, by: caller.id });
    });
    return {
      node_version: toNodeVersionDto(version, this.archives.linksFor(origin)),
      signedUrl: await this.uploadUrls.sign(version.id, this.archives.baseUrl(origin)),
    };
  }

  /** The version a signed URL names, locked with its node, while it still waits for its archive: 403 otherwise. */
  private async requirePendingVersion(manager: EntityManager, versionId: string): Promise<NodeVersionEntity> {
    const version = await this.repository.lockVersionWithNode(manager, versionId, this.tx.lockForUpdate());
    if (!version) {
      throw new ForbiddenException('upload URL is no longer valid (its version does not exist)');
    }
    const node = await this.repository.findNode(version.nodeId.toLowerCase(), manager);
    if (node?.status !== 'NodeStatusActive') {
      throw new ForbiddenException(node?.status === 'NodeStatusBanned' ? 'node banned' : 'upload URL is no longer valid (its node was deleted)');
    }
    // The URL stands for the member's token that got it, which a ban of the publisher refuses (even with its node reactivated).
    if ((await this.publishers.requirePublisher(node.publisherId, manager)).status === 'PublisherStatusBanned') {
      throw new ForbiddenException('publisher banned');
    }
    if (version.status === 'NodeVersionStatusDeleted') {
      throw new ForbiddenException('upload URL is no longer valid (its version was deleted)');
    }
    // Pending without an archive: once one is stored, the version waits for its checks, and the URL is used.
    if (version.archiveSha256 !== null) {
      throw new ForbiddenException('upload URL has already been used');
    }
    if (version.status !== PENDING) {
      throw new ForbiddenException(`upload URL is no longer valid (its version is ${version.status}, no longer waiting for its archive)`);
    }
    return version;
  }

  /**
   * In one transaction with `lockVersion` (which locks the version's node and
   * checks the version may take the archive), the stored archive becomes the
   * version's download, and the version pending until the archive's review
   * (its checks, docs/api-rules.md §10, and its node classes, §9.3) decides:
   * it leaves the latest version if it was. The review then runs in the
   * background; pending is written in the same transaction, so a restart
   * before the review is stored resumes it (ArchiveReview).
   */
  private async attachArchive(
    lockVersion: (manager: EntityManager) => Promise<NodeVersionEntity>,
    archive: StoredArchive,
    origin: string,
  ): Promise<NodeVersionDto> {
    const version = await this.tx.run(async (manager) => {
      const locked = await lockVersion(manager);
      const at = new Date();
      const changes: Partial<NodeVersionEntity> = {
        archiveSha256: archive.sha256,
        // The archive is the download now; its link is made for each reply (ArchivesService.linksFor).
        downloadUrl: null,
        appNodeExtractStatus: EXTRACT_PENDING,
        status: PENDING,
        statusReason: AWAITING_CHECKS,
        updatedAt: at,
      };
      await this.repository.updateVersion(manager, locked.id, changes);
      await this.history.appendStatusChange(manager, { ...locked, ...changes }, { status: PENDING, reason: AWAITING_CHECKS, by: 'checks' }, at);
      if (locked.status !== PENDING) await this.nodes.recomputeLatestVersion(manager, locked.nodeId);
      return Object.assign(locked, changes);
    });
    this.review.start({ versionId: version.id, version: version.version, sha256: archive.sha256 });
    return toNodeVersionDto(version, this.archives.linksFor(origin));
  }
}
