import { Injectable, NotFoundException } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ArchivesService } from '../../archives/archives.service';
import { Principal } from '../../auth/principal';
import { PublicReadCache } from '../../common/http/public-read-cache';
import { offsetOf, pageOf } from '../../common/pagination/page-query.dto';
import { TransactionRunner } from '../../database/transaction-runner';
import { Finding, SEVERITY_OF } from '../archive-checks/findings';
import { ComfyNodesService, ExtractionState } from '../comfy-nodes/comfy-nodes.service';
import { ExtractionResult } from '../comfy-nodes/extraction/extract-node-classes';
import { NodeVersionDto } from '../dto/node-version.dto';
import { toNodeVersionDto } from '../dto/node.mapper';
import { NodeVersionEntity, NodeVersionStatus, PENDING } from '../entities/node-version.entity';
import { NodesRepository } from '../nodes.repository';
import { NodesService } from '../nodes.service';
import { ArchiveReviewJob } from './archive-review';
import { AdminVersionDecisionDto, ReviewQueueDto, ReviewQueueQueryDto, VersionReviewDto } from './dto/version-review.dto';
import { toVersionReviewDto } from './dto/version-review.mapper';
import { assertDecisionAllowed, decideFromFindings } from './review-decision';
import { VersionReviewsRepository } from './version-reviews.repository';

/** The admin queue's statuses when none are asked for: what waits for an admin (pending versions wait for their checks or archive). */
const QUEUE_STATUSES: NodeVersionStatus[] = ['NodeVersionStatusFlagged'];

/** The finding for an extraction that found no class (docs/api-rules.md §10 `no-node-classes`), if it did not. */
function nodeClassFindings({ status, reason }: ExtractionState): Finding[] {
  if (status !== 'failed') return [];
  return [{ code: 'no-node-classes', severity: SEVERITY_OF['no-node-classes'], message: `no node classes found${reason ? `: ${reason}` : ''}` }];
}

/**
 * The review lifecycle (docs/api-rules.md §10): the outcome of an archive's
 * checks, the review record its publisher reads, and the admins' queue and
 * decisions. Every status change is appended to the version's history.
 */
@Injectable()
export class VersionReviewService {
  constructor(
    private readonly reviews: VersionReviewsRepository,
    private readonly nodes: NodesService,
    private readonly nodeRows: NodesRepository,
    private readonly archives: ArchivesService,
    private readonly comfyNodes: ComfyNodesService,
    private readonly tx: TransactionRunner,
    private readonly cache: PublicReadCache,
  ) {}

  /**
   * Stores what the review of a version's archive found, in one
   * transaction under the node's lock: the node classes (unless its
   * publisher reported them meanwhile) and, while the version is still
   * pending with that archive, the findings and the status they decide. A
   * result for an archive since replaced, or already stored by another
   * instance, writes nothing. Public replies show the change at once.
   */
  async recordReview(job: ArchiveReviewJob, extraction: ExtractionResult, findings: Finding[]): Promise<void> {
    const written = await this.tx.run(async (manager) => {
      const version = await this.nodeRows.lockVersionWithNode(manager, job.versionId, this.tx.lockForUpdate());
      if (!version || version.archiveSha256 !== job.sha256) return false;
      const classes = await this.comfyNodes.recordExtraction(manager, version, extraction);
      if (version.status !== PENDING) return true;
      const all = [...findings, ...nodeClassFindings(classes)];
      const decision = decideFromFindings(all);
      await this.reviews.saveReview(manager, version.id, job.sha256, all);
      await this.setStatus(manager, version, { status: decision.status, reason: decision.reason, by: 'checks' });
      return true;
    });
    if (written) await this.cache.contentChanged();
  }

  /**
   * Moves a version (read under its node's lock) to `status`, with the
   * change in its history and the node's latest version recomputed.
   */
  async setStatus(manager: EntityManager, version: NodeVersionEntity, change: { status: NodeVersionStatus; reason: string | null; by: string }): Promise<void> {
    const at = new Date();
    await this.nodeRows.updateVersion(manager, version.id, { status: change.status, statusReason: change.reason, updatedAt: at });
    // The history lists changes: a decision that keeps the status (a new reason) is not one.
    if (change.status !== version.status) await this.reviews.appendStatusChange(manager, version, change, at);
    await this.nodes.recomputeLatestVersion(manager, version.nodeId);
    Object.assign(version, { status: change.status, statusReason: change.reason, updatedAt: at });
  }

  /** GET /publishers/{p}/nodes/{n}/versions/{v}/review: the version's status, findings and history, for its members and admins. */
  async reviewRecord(caller: Principal, publisherId: string, nodeId: string, versionId: string): Promise<VersionReviewDto> {
    const version = await this.nodes.memberVersion(caller, publisherId, nodeId, versionId);
    const [review, history] = await Promise.all([this.reviews.findReview(version.id), this.reviews.history(version.id)]);
    return toVersionReviewDto(version, review, history);
  }

  /** GET /versions: versions with the statuses asked for (else flagged ones), oldest first. */
  async queue(query: ReviewQueueQueryDto, origin: string): Promise<ReviewQueueDto> {
    const [versions, total] = await this.nodeRows.versionQueue(query.statuses ?? QUEUE_STATUSES, offsetOf(query), query.limit);
    const links = this.archives.linksFor(origin);
    return pageOf(total, 'versions', versions.map((version) => toNodeVersionDto(version, links)), query);
  }

  /**
   * PUT /admin/nodes/{nodeId}/versions/{version}: an admin's decision, with
   * its reason. A version that checks blocked stays flagged (409 for
   * making it active): only a new version can replace it.
   */
  async decide(admin: Principal, nodeId: string, versionId: string, input: AdminVersionDecisionDto, origin: string): Promise<NodeVersionDto> {
    const version = await this.tx.run(async (manager) => {
      const found = await this.nodes.lockNodeForAdmin(manager, nodeId);
      const locked = await this.nodeRows.findVersion(manager, found.id, versionId);
      if (!locked) throw new NotFoundException(`version '${versionId}' of node '${found.id}' not found`);
      const reason = input.status_reason ?? null;
      assertDecisionAllowed(locked, input.status, reason, await this.reviews.findReview(locked.id, manager));
      await this.setStatus(manager, locked, { status: input.status, reason, by: admin.id });
      return locked;
    });
    return toNodeVersionDto(version, this.archives.linksFor(origin));
  }
}
