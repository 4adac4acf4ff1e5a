import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsISO8601,
  IsNotEmpty,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { applyDecorators } from '@nestjs/common';
import { ApiInteger } from '../../common/openapi/api-integer.decorator';
import { AdminOnly } from '../../common/validation/admin-only';
import { PageQueryDto, toQueryInteger } from '../../common/pagination/page-query.dto';
import { IsHttpUrl, IsObjectOfObjects, NotNullable, Nullable } from '../../common/validation/validators';
import { PublisherDto } from '../../publishers/dto/publisher.dto';
import { NODE_VERSION_STATUSES, NodeVersionStatus } from '../entities/node-version.entity';
import { NODE_STATUSES, NodeStatus } from '../entities/node.entity';
import { NodeVersionDto } from './node-version.dto';

export const MAX_CATALOG_PAGE_SIZE = 1000;

// A named constant, not a negative literal: the Swagger CLI plugin cannot copy `-1_000_000_000`
// from @Min into the schema and then leaves the whole property out of the document.
const MIN_SEARCH_RANKING = -1_000_000_000;
const MAX_SEARCH_RANKING = 1_000_000_000;

export const NODE_ID_PATTERN = /^[a-zA-Z0-9](?:[a-zA-Z0-9._-]*[a-zA-Z0-9])?$/;

/** A list of non-empty strings; null clears it (merge-patch). */
export function StringList(): PropertyDecorator {
  return applyDecorators(
    Nullable(),
    IsArray(),
    ArrayMaxSize(100),
    IsString({ each: true }),
    IsNotEmpty({ each: true }),
    MaxLength(256, { each: true }),
  );
}

/** A text field that null clears (merge-patch). */
function OptionalText(maxLength: number): PropertyDecorator {
  return applyDecorators(Nullable(), IsString(), MaxLength(maxLength));
}

function OptionalUrl(): PropertyDecorator {
  return applyDecorators(Nullable(), IsHttpUrl(), MaxLength(2048));
}

/**
 * Node fields a publisher writes, shared by create and update. Every field is
 * optional; `null` clears it (arrays become empty).
 */
export class NodeFieldsDto {
  @OptionalText(5000)
  description?: string | null;

  @OptionalText(256)
  author?: string | null;

  /** Deprecated: use `tags` instead. Will be removed in a future version. */
  @ApiProperty({ deprecated: true, required: false, nullable: true, type: String })
  @OptionalText(256)
  category?: string | null;

  /** Path to the LICENSE file in the node's repository. */
  @OptionalText(2048)
  license?: string | null;

  /** URL of the node's icon. */
  @OptionalUrl()
  icon?: string | null;

  /** URL of the node's banner. */
  @OptionalUrl()
  banner_url?: string | null;

  /** URL of the repository. */
  @OptionalUrl()
  repository?: string | null;

  /** URL of the node's home page (documentation, examples), when it is not the repository. */
  @OptionalUrl()
  homepage?: string | null;

  @StringList()
  tags?: string[] | null;

  /** Operating systems the node supports. */
  @StringList()
  supported_os?: string[] | null;

  /** Accelerator kinds the node supports. */
  @StringList()
  supported_accelerators?: string[] | null;

  /** Supported versions of the host application. */
  @OptionalText(256)
  supported_app_version?: string | null;

  /** Supported frontend versions of the host application. */
  @OptionalText(256)
  supported_app_frontend_version?: string | null;

  /** Translations of node metadata per language: an object of objects, e.g. {"de": {"name": "..."}}. */
  @ApiProperty({ required: false, nullable: true, type: Object, additionalProperties: { type: 'object' } })
  @Nullable()
  @IsObjectOfObjects()
  translations?: Record<string, Record<string, unknown>> | null;

  /** Admin only. */
  @AdminOnly()
  @NotNullable()
  @IsIn(NODE_STATUSES)
  status?: NodeStatus;

  /** Admin only. Detail of the status. */
  @AdminOnly()
  @OptionalText(5000)
  status_detail?: string | null;

  /** Admin only. Tags for security warnings and admin metadata. */
  @AdminOnly()
  @StringList()
  tags_admin?: string[] | null;

  /** Admin only. Value used to sort search results (highest first). */
  @AdminOnly()
  @ApiInteger()
  @NotNullable()
  @IsInt()
  @Min(MIN_SEARCH_RANKING)
  @Max(MAX_SEARCH_RANKING)
  search_ranking?: number;

  /** Admin only. Names of application nodes that are preempted by this node. */
  @AdminOnly()
  @StringList()
  preempted_app_node_names?: string[] | null;
}

export class CreateNodeDto extends NodeFieldsDto {
  /** 1-100 letters, digits, '.', '_' or '-', starting and ending with a letter or digit; unique ignoring case. @example acme-upscaler */
  @Length(1, 100)
  @Matches(NODE_ID_PATTERN, { message: 'id must match ^[a-zA-Z0-9](?:[a-zA-Z0-9._-]*[a-zA-Z0-9])?$' })
  id!: string;

  /** Display name. @example Acme Upscaler */
  @IsString()
  @Length(1, 256)
  name!: string;
}

/**
 * Partial update (JSON merge-patch): omitted fields stay, null clears, arrays
 * are replaced whole. Server-managed fields are accepted and ignored so a GET
 * → edit → PUT round trip works.
 */
export class UpdateNodeDto extends NodeFieldsDto {
  /** Optional; must equal the path's node id (ignoring case). */
  @NotNullable()
  @IsString()
  id?: string;

  /** Display name; cannot be cleared. */
  @NotNullable()
  @IsString()
  @Length(1, 256)
  name?: string;

  /** Server-managed: accepted and ignored. */
  @IsOptional()
  @IsISO8601()
  created_at?: string;

  /** Server-managed: accepted and ignored. */
  @ApiInteger()
  @IsOptional()
  @IsInt()
  downloads?: number;

  /** Server-managed: accepted and ignored. */
  @ApiInteger()
  @IsOptional()
  @IsInt()
  github_stars?: number;

  /** Server-managed: accepted and ignored. */
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  rating?: number;

  /** Server-managed: accepted and ignored. */
  @ApiProperty({ required: false, type: () => NodeVersionDto, readOnly: true })
  @IsOptional()
  @IsObject()
  latest_version?: object;

  /** Server-managed: accepted and ignored. */
  @ApiProperty({ required: false, type: () => PublisherDto, readOnly: true })
  @IsOptional()
  @IsObject()
  publisher?: object;
}

export class NodeDto {
  /** Unique identifier of the node. */
  id!: string;
  /** Display name. */
  name!: string;
  description?: string;
  author?: string;
  /** Deprecated: use `tags` instead. Will be removed in a future version. */
  @ApiProperty({ deprecated: true, required: false, type: String })
  category?: string;
  /** Path to the LICENSE file in the node's repository. */
  license?: string;
  /** URL of the node's icon. */
  icon?: string;
  /** URL of the node's banner. */
  banner_url?: string;
  /** URL of the repository. */
  repository?: string;
  /** URL of the node's home page (documentation, examples), when it is not the repository. */
  homepage?: string;
  tags!: string[];
  /** Admin-only tags for security warnings and admin metadata. */
  tags_admin!: string[];
  supported_os!: string[];
  supported_accelerators!: string[];
  supported_app_version?: string;
  supported_app_frontend_version?: string;
  preempted_app_node_names!: string[];
  /** Translations of node metadata per language. */
  @ApiProperty({ required: false, type: Object, additionalProperties: { type: 'object' } })
  translations?: Record<string, Record<string, unknown>>;
  /** @example NodeStatusActive */
  @ApiProperty({ enum: NODE_STATUSES })
  status!: NodeStatus;
  status_detail?: string;
  /** Value used to sort search results. */
  @ApiInteger()
  search_ranking!: number;
  /** Number of downloads. */
  @ApiInteger()
  downloads!: number;
  /** Stars on the source repository. */
  @ApiInteger()
  github_stars!: number;
  /** Mean of the node's star reviews (0 with none). */
  rating!: number;
  /** Creation time of the node. */
  created_at!: string;
  publisher!: PublisherDto;
  /** The highest active, non-deprecated semantic version; absent when there is none. */
  latest_version?: NodeVersionDto;
}

/** A short text query parameter the host app's clients send; accepted and not (yet) used to filter. */
function ClientHint(): PropertyDecorator {
  return applyDecorators(IsOptional(), IsString(), MaxLength(64));
}

export class NodeListQueryDto extends PageQueryDto {
  /** Items per page, at most 1000 (older package-manager clients fetch the whole catalog in one page of 1000). */
  @ApiInteger()
  @Transform(toQueryInteger)
  @IsInt()
  @Min(1)
  @Max(MAX_CATALOG_PAGE_SIZE)
  override limit: number = 10;

  /** Matches id, name, description and author, ignoring case. */
  @IsOptional()
  @IsString()
  @MaxLength(200)
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))
  search?: string;

  /** Only nodes whose own row or any of whose versions changed after this instant (ISO 8601 date-time). @example 2026-01-01T00:00:00Z */
  @IsOptional()
  @IsISO8601({ strict: true, strictSeparator: true })
  timestamp?: string;

  /** The host application's version, as its package manager sends it. Accepted; no filtering yet. @example v0.3.60 */
  @ClientHint()
  comfyui_version?: string;

  /** Neutral alias of `comfyui_version`. Accepted; no filtering yet. */
  @ClientHint()
  app_version?: string;

  /** How the host application is installed (e.g. `git-linux`). Accepted; no filtering yet. @example git-linux */
  @ClientHint()
  form_factor?: string;
}

/** Query of GET /nodes/{nodeId}/versions. */
export class NodeVersionListQueryDto {
  /** Only versions with one of these statuses (repeat the parameter); without it every status but deleted. */
  @ApiProperty({ required: false, isArray: true, enum: NODE_VERSION_STATUSES })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? [value] : value))
  @IsArray()
  @ArrayMaxSize(NODE_VERSION_STATUSES.length)
  @IsIn(NODE_VERSION_STATUSES, { each: true })
  statuses?: NodeVersionStatus[];
}

/** Query of GET /nodes/{nodeId}/install. */
export class InstallQueryDto {
  /** The semantic version to install; without it, the node's latest_version. @example 1.0.0 */
  @IsOptional()
  @IsString()
  @MaxLength(256)
  version?: string;
}

export class NodeListDto {
  @ApiInteger()
  total!: number;
  nodes!: NodeDto[];
  @ApiInteger()
  page!: number;
  @ApiInteger()
  limit!: number;
  @ApiInteger()
  totalPages!: number;
}
