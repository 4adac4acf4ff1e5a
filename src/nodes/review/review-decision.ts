import type { Finding } from '../archive-checks/findings';
import { summarizeFindings } from '../archive-checks/findings';
import { BadRequestException, ConflictException } from '@nestjs/common';
import { NodeVersionEntity, NodeVersionStatus } from '../entities/node-version.entity';
import { VersionReviewEntity } from './entities/version-review.entity';

/** What checks decide about a version (docs/api-rules.md §10). */
export interface ReviewDecision {
  status: Extract<NodeVersionStatus, 'NodeVersionStatusActive' | 'NodeVersionStatusFlagged'>;
  /** Null when active with nothing to say. */
  reason: string | null;
}

/**
 * No `block` or `review` finding: active. A `block` finding: flagged, final.
 * A `review` finding: flagged until an admin decides. `info` findings only
 * inform (they appear in the reason of an active version).
 */
export function decideFromFindings(findings: readonly Finding[]): ReviewDecision {
  const held = findings.some((finding) => finding.severity === 'block' || finding.severity === 'review');
  return {
    status: held ? 'NodeVersionStatusFlagged' : 'NodeVersionStatusActive',
    reason: findings.length > 0 ? summarizeFindings(findings) : null,
  };
}

/**
 * What the checks of the version's current archive blocked it for (their
 * summary, as the reason they gave), or undefined when they did not. Final,
 * whatever its status and reason now (a ban's, a delete's): only a new
 * version replaces it.
 */
export function checksBlock(version: Pick<NodeVersionEntity, 'archiveSha256'>, review: Pick<VersionReviewEntity, 'archiveSha256' | 'findings'> | null): string | undefined {
  const blocked = review !== null && review.archiveSha256 === version.archiveSha256 && review.findings.some((finding) => finding.severity === 'block');
  return blocked ? summarizeFindings(review.findings) : undefined;
}

/**
 * The rules of an admin's status decision, whichever route makes it: not
 * pending (a version is pending only while its archive waits for its
 * checks, and none may be decided then), a reason for every status but
 * active, and never active for a version its checks blocked.
 */
export function assertDecisionAllowed(
  version: Pick<NodeVersionEntity, 'status' | 'archiveSha256' | 'version'>,
  status: NodeVersionStatus,
  reason: string | null,
  review: Pick<VersionReviewEntity, 'archiveSha256' | 'findings'> | null,
): void {
  if (status === 'NodeVersionStatusPending') {
    throw new BadRequestException('a version is pending only while its archive waits for its checks; an admin may not set it');
  }
  if (version.status === 'NodeVersionStatusPending' && version.archiveSha256 !== null) {
    throw new ConflictException(`version '${version.version}' is being checked; decide once its checks are done`);
  }
  if (status !== 'NodeVersionStatusActive' && !reason?.trim()) throw reasonRequired(status);
  const block = checksBlock(version, review);
  if (status === 'NodeVersionStatusActive' && block !== undefined) {
    throw new ConflictException(`version '${version.version}' was blocked by its checks (${block}); publish a new version instead`);
  }
}

/**
 * An admin's change of the reason alone: a flagged or banned version keeps
 * the reason its decision needed (reworded, never removed). Other statuses
 * need none (a member's delete gives none).
 */
export function assertReasonKept(version: Pick<NodeVersionEntity, 'status' | 'statusReason'>, reason: string | null): void {
  const decided = version.status === 'NodeVersionStatusFlagged' || version.status === 'NodeVersionStatusBanned';
  if (decided && version.statusReason && !reason?.trim()) throw reasonRequired(version.status);
}

function reasonRequired(status: NodeVersionStatus): BadRequestException {
  return new BadRequestException(`status_reason is required with status ${status}: it tells the publisher why`);
}
