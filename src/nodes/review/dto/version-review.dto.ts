import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsOptional, IsString, Max, MaxLength, Min, IsInt } from 'class-validator';
import { ApiInteger } from '../../../common/openapi/api-integer.decorator';
import { PageDto, PageQueryDto, toQueryInteger, toQueryList } from '../../../common/pagination/page-query.dto';
import { FINDING_CODES, FindingCode, FindingSeverity } from '../../archive-checks/findings';
import { NodeVersionDto } from '../../dto/node-version.dto';
import { NODE_VERSION_STATUSES, NodeVersionStatus } from '../../entities/node-version.entity';

export class FindingDto {
  @ApiProperty({ enum: FINDING_CODES })
  code!: FindingCode;
  /** `block`: flagged for good; `review`: flagged until an admin decides; `info`: informs only. */
  @ApiProperty({ enum: ['block', 'review', 'info'] })
  severity!: FindingSeverity;
  /** What was found (a secret's kind, never its value). */
  message!: string;
  /** The archive entry it was found in. */
  file?: string;
  @ApiInteger()
  line?: number;
}

export class StatusChangeDto {
  @ApiProperty({ enum: NODE_VERSION_STATUSES })
  status!: NodeVersionStatus;
  reason?: string;
  /** When (ISO 8601). */
  at!: string;
  /** `checks`, or the id of the user who made the change (an admin, or the member who published, uploaded or deleted). */
  by!: string;
}

/** A version's review record. */
export class VersionReviewDto {
  @ApiProperty({ enum: NODE_VERSION_STATUSES })
  status!: NodeVersionStatus;
  /** Why the version is not active (or what its checks noted); absent when there is nothing to say. */
  status_reason?: string;
  /** What the checks found in its latest archive (empty before its first check, or when nothing was found). */
  findings!: FindingDto[];
  /** Every status change, oldest first. */
  history!: StatusChangeDto[];
}

/** The statuses an admin's decision may set: a version is pending only while its archive waits for checks. */
export const DECIDABLE_STATUSES = ['NodeVersionStatusActive', 'NodeVersionStatusFlagged', 'NodeVersionStatusBanned', 'NodeVersionStatusDeleted'] as const;

export class AdminVersionDecisionDto {
  /** @example NodeVersionStatusActive */
  @IsIn(DECIDABLE_STATUSES, { message: `status must be one of ${DECIDABLE_STATUSES.join(', ')} (a version is pending only while its checks run)` })
  status!: (typeof DECIDABLE_STATUSES)[number];

  /** Why: shown to the publisher. Required for every status but active. */
  @IsOptional()
  @IsString()
  @MaxLength(5000)
  status_reason?: string;
}

export class ReviewQueueQueryDto extends PageQueryDto {
  /** Items per page, at most 100. */
  @ApiInteger()
  @Transform(toQueryInteger)
  @IsInt()
  @Min(1)
  @Max(100)
  override limit: number = 10;

  /** Only versions with one of these statuses (repeat the parameter); without it, flagged ones (what waits for an admin). */
  @ApiProperty({ required: false, isArray: true, enum: NODE_VERSION_STATUSES })
  @IsOptional()
  @Transform(toQueryList)
  @IsArray()
  @ArrayMaxSize(NODE_VERSION_STATUSES.length)
  @IsIn(NODE_VERSION_STATUSES, { each: true })
  statuses?: NodeVersionStatus[];
}

export class ReviewQueueDto extends PageDto {
  versions!: NodeVersionDto[];
}
