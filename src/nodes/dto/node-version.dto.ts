import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { applyDecorators } from '@nestjs/common';
import { AdminOnly } from '../../common/validation/admin-only';
import { IsHttpUrl, NotNullable, Nullable } from '../../common/validation/validators';
import { NODE_VERSION_STATUSES, NodeVersionStatus } from '../entities/node-version.entity';
import { StringList } from './node.dto';
import { ApiDateTime } from '../../common/openapi/api-date-time.decorator';

/** A text that may be left out, its limit stated in the document too (see StringList). */
function OptionalText(maxLength: number): PropertyDecorator {
  return applyDecorators(ApiProperty({ required: false, maxLength }), IsOptional(), IsString(), MaxLength(maxLength));
}

export class CreateNodeVersionDto {
  /** A semantic version (https://semver.org), unique for the node. @example 1.10.0 */
  @IsString()
  @MaxLength(256)
  version!: string;

  /** Summary of changes in the version. */
  @OptionalText(20000)
  changelog?: string;

  /** Pip dependencies required by the node. */
  @IsOptional()
  @StringList()
  dependencies?: string[];

  @IsOptional()
  @StringList()
  supported_os?: string[];

  @IsOptional()
  @StringList()
  supported_accelerators?: string[];

  @OptionalText(256)
  supported_app_version?: string;

  @OptionalText(256)
  supported_app_frontend_version?: string;

  @IsOptional()
  @StringList()
  tags?: string[];

  /** Admin only: where the version's archive can be downloaded (absolute http(s) URL). Publishers upload the archive instead (PUT …/versions/{versionId}/archive). */
  @IsOptional()
  @IsHttpUrl()
  @MaxLength(2048)
  downloadUrl?: string;
}

/** Partial update of a version. `status` and `status_reason` are for admins (moderation). */
export class UpdateNodeVersionDto {
  /** Summary of changes in the version; null clears it. */
  @Nullable()
  @IsString()
  @MaxLength(20000)
  changelog?: string | null;

  /** Whether the version is deprecated. Deprecating the latest version moves the node's latest_version at once. */
  @NotNullable()
  @IsBoolean()
  deprecated?: boolean;

  /** Admin only: ban, flag or restore a version. */
  @ApiProperty({ enum: NODE_VERSION_STATUSES, required: false })
  @AdminOnly()
  @NotNullable()
  @IsIn(NODE_VERSION_STATUSES)
  status?: NodeVersionStatus;

  /** Admin only. */
  @AdminOnly()
  @Nullable()
  @IsString()
  @MaxLength(5000)
  status_reason?: string | null;
}

export class NodeVersionDto {
  id!: string;
  /** Identifier of the node. */
  node_id!: string;
  /** Semantic version, unique for the node. */
  version!: string;
  /** Summary of changes in the version. */
  changelog?: string;
  /** Pip dependencies required by the node. */
  dependencies!: string[];
  /** Whether the version is deprecated. */
  deprecated!: boolean;
  /** Output only. URL to download the version. */
  downloadUrl?: string;
  @ApiProperty({ enum: NODE_VERSION_STATUSES })
  status!: NodeVersionStatus;
  status_reason?: string;
  /** Status of the node extraction process. */
  app_node_extract_status?: string;
  supported_os!: string[];
  supported_accelerators!: string[];
  supported_app_version?: string;
  supported_app_frontend_version?: string;
  tags!: string[];
  /** Admin-only tags. */
  tags_admin!: string[];
  /** Creation time of the version. */
  @ApiDateTime()
  createdAt!: string;
}
