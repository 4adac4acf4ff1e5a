import { absentIfNull } from '../../../common/replies/omit-absent';
import { NodeVersionEntity } from '../../entities/node-version.entity';
import { VersionReviewEntity } from '../entities/version-review.entity';
import { VersionStatusChangeEntity } from '../entities/version-status-change.entity';
import { VersionReviewDto } from './version-review.dto';

export function toVersionReviewDto(version: NodeVersionEntity, review: VersionReviewEntity | null, history: VersionStatusChangeEntity[]): VersionReviewDto {
  return {
    status: version.status,
    status_reason: absentIfNull(version.statusReason),
    findings: (review?.findings ?? []).map((finding) => ({ ...finding })),
    history: history.map((change) => ({ status: change.status, reason: absentIfNull(change.reason), at: change.at.toISOString(), by: change.by })),
  };
}
