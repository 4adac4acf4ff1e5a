import type { Finding } from '../archive-checks/findings';
import { summarizeFindings } from '../archive-checks/findings';
import { NodeVersionStatus } from '../entities/node-version.entity';

/** What checks decide about a version (docs/api-rules.md §10). */
export interface ReviewDecision {
  status: Extract<NodeVersionStatus, 'NodeVersionStatusActive' | 'NodeVersionStatusFlagged'>;
  /** Null when active with nothing to say. */
  reason: string | null;
  /** A block finding: flagged for good, no admin may make it active (only a new version can). */
  blocked: boolean;
}

/**
 * No `block` or `review` finding: active. A `block` finding: flagged, final.
 * A `review` finding: flagged until an admin decides. `info` findings only
 * inform (they appear in the reason of an active version).
 */
export function decideFromFindings(findings: readonly Finding[]): ReviewDecision {
  const blocked = findings.some((finding) => finding.severity === 'block');
  const held = blocked || findings.some((finding) => finding.severity === 'review');
  return {
    status: held ? 'NodeVersionStatusFlagged' : 'NodeVersionStatusActive',
    reason: findings.length > 0 ? summarizeFindings(findings) : null,
    blocked,
  };
}
