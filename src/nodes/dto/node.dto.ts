import { ApiProperty, IntersectionType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsISO8601,
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
import { PageDto, PageNumberQueryDto, toQueryBoolean, toQueryInteger, toQueryList } from '../../common/pagination/page-query.dto';
import { IsHttpUrl, IsObjectOfObjectsPatch, NotNullable, Nullable } from '../../common/validation/validators';
import { PublisherDto } from '../../publishers/dto/publisher.dto';
import { NODE_VERSION_STATUSES, NodeVersionStatus } from '../entities/node-version.entity';
import { NODE_STATUSES, NodeStatus } from '../entities/node.entity';
import { NodeVersionDto } from './node-version.dto';
import { ApiDateTime } from '../../common/openapi/api-date-time.decorator';

export const MAX_CATALOG_PAGE_SIZE = 1000;

// A named constant, not a negative literal: the Swagger CLI plugin cannot copy `-1_000_000_000`
// from @Min into the schema and then leaves the whole property out of the document.
const MIN_SEARCH_RANKING = -1_000_000_000;
const MAX_SEARCH_RANKING = 1_000_000_000;

export const NODE_ID_PATTERN = /^[a-zA-Z0-9](?:[a-zA-Z0-9._-]*[a-zA-Z0-9])?$/;

/** NODE_ID_PATTERN and the length limit, as a 400 says them. */
export const NODE_ID_RULE = "1-100 letters, digits, '.', '_' or '-', starting and ending with a letter or digit";

/**
 * A list of strings, none of them blank; null clears it (merge-patch). These helpers
 * state their limits in the document too: the Swagger plugin reads only the
 * decorators written on a property.
 */
export function StringList(): PropertyDecorator {
  return applyDecorators(
    ApiProperty({ required: false, type: 'array', maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 256 } }),
    Nullable(),
    IsArray(),
    ArrayMaxSize(100),
    IsString({ each: true }),
    Matches(/\S/, { each: true, message: 'each value in $property must not be empty or blank' }),
    MaxLength(256, { each: true }),
  );
}

/** A text field that null clears (merge-patch). */
function ClearableText(maxLength: number): PropertyDecorator {
  return applyDecorators(ApiProperty({ required: false, maxLength }), Nullable(), IsString(), MaxLength(maxLength));
}

/** An absolute http(s) URL that null clears (merge-patch). */
function ClearableUrl(): PropertyDecorator {
  return applyDecorators(ApiProperty({ required: false, format: 'uri', maxLength: 2048 }), Nullable(), IsHttpUrl(), MaxLength(2048));
}

/**
 * Node fields a publisher writes, shared by create and update. Every field is
 * optional; `null` clears it (arrays become empty).
 */
export class NodeFieldsDto {
  @ClearableText(5000)
  description?: string | null;

  @ClearableText(256)
  author?: string | null;

  /** Deprecated: use `tags` instead. Will be removed in a future version. */
  @ApiProperty({ deprecated: true, required: false, nullable: true, type: String })
  @ClearableText(256)
  category?: string | null;

  /** Path to the LICENSE file in the node's repository. */
  @ClearableText(2048)
  license?: string | null;

  /** URL of the node's icon. */
  @ClearableUrl()
  icon?: string | null;

  /** URL of the node's banner. */
  @ClearableUrl()
  banner_url?: string | null;

  /** URL of the repository. */
  @ClearableUrl()
  repository?: string | null;

  /** URL of the node's home page (documentation, examples), when it is not the repository. */
  @ClearableUrl()
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
  @ClearableText(256)
  supported_app_version?: string | null;

  /** Supported frontend versions of the host application. */
  @ClearableText(256)
  supported_app_frontend_version?: string | null;

  /**
   * Translations of node metadata per language: an object of objects, e.g. {"de": {"name": "..."}}, applied as a
   * JSON merge-patch of the node's (a language, or a member of one, set to null is removed; null clears them all).
   * At most 1 MiB of JSON once merged.
   */
  @ApiProperty({ required: false, nullable: true, type: Object, additionalProperties: { type: 'object', nullable: true } })
  @Nullable()
  @IsObjectOfObjectsPatch()
  translations?: Record<string, Record<string, unknown>> | null;

  /** Admin only. */
  @AdminOnly()
  @NotNullable()
  @IsIn(NODE_STATUSES)
  status?: NodeStatus;

  /** Admin only. Detail of the status. */
  @AdminOnly()
  @ClearableText(5000)
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
  @Matches(NODE_ID_PATTERN, { message: `id must be ${NODE_ID_RULE}` })
  id!: string;

  /** Display name. @example Acme Upscaler */
  @IsString()
  @Length(1, 256)
  name!: string;
}

/**
 * Partial update (JSON merge-patch): omitted fields stay, null clears, arrays
 * are replaced whole, translations are merged. Server-managed fields are accepted and ignored so a GET
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
  @ApiDateTime()
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
  @ApiDateTime()
  created_at!: string;
  publisher!: PublisherDto;
  /** The highest active, non-deprecated semantic version; absent when there is none. */
  latest_version?: NodeVersionDto;
}

/** A short text query parameter the host app's clients send. */
function ClientHint(): PropertyDecorator {
  return applyDecorators(IsOptional(), IsString(), MaxLength(64));
}

/** A platform filter's one value: any text, since an unknown one matches nothing but is never a 400 (new platforms appear). */
function PlatformValue(): PropertyDecorator {
  return applyDecorators(IsOptional(), IsString());
}

/** An optional boolean query parameter (`true` or `false`). */
function QueryFlag(): PropertyDecorator {
  return applyDecorators(IsOptional(), Transform(toQueryBoolean), IsBoolean());
}

/** A repeatable query parameter of short strings, at most `maxValues` of them. */
function QueryList(maxValues: number, maxLength: number): PropertyDecorator {
  return applyDecorators(
    IsOptional(),
    Transform(toQueryList),
    IsArray(),
    ArrayMaxSize(maxValues, { message: ({ property }) => `${property} takes at most ${maxValues} values` }),
    IsString({ each: true }),
    MaxLength(maxLength, { each: true }),
  );
}

/** The most nodes one `node_id` filter names (docs/api-rules.md §9.1). */
export const MAX_NODE_ID_FILTER = 100;

/**
 * What catalog reads and searches share: paging, the search term, the
 * platform filters (docs/api-rules.md §9.1). Not a PageQueryDto: its larger
 * `limit` would add to that class's rules, not replace them, in subclasses.
 */
export class CatalogQueryDto extends PageNumberQueryDto {
  /** Items per page, at most 1000 (older package-manager clients fetch the whole catalog in one page of 1000). */
  @ApiInteger()
  @Transform(toQueryInteger)
  @IsInt()
  @Min(1)
  @Max(MAX_CATALOG_PAGE_SIZE)
  limit: number = 10;

  /** Matches id, name, description and author, ignoring case. */
  @IsOptional()
  @IsString()
  @MaxLength(200)
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))
  search?: string;

  /** Only nodes whose latest version (else the node) supports this OS family: `windows`, `macos`, `linux`, or a spelling of one (`Microsoft :: Windows`, `darwin`). An empty list or `OS Independent` supports every OS. For example `windows`. */
  @PlatformValue()
  supported_os?: string;

  /** The same for accelerators: `cuda`, `rocm`, `metal`, `directml`, `xpu`, `cpu`, or a spelling of one (`GPU :: NVIDIA CUDA`). For example `cuda`. */
  @PlatformValue()
  supported_accelerator?: string;

  /** Admins only: list banned nodes too. Ignored for everyone else. */
  @QueryFlag()
  include_banned?: boolean;
}

/** What the caller runs, which chooses the version a node offers it (docs/api-rules.md §9.1): GET /nodes and /install. */
export class CompatibilityQueryDto {
  /**
   * The host application's version, as its package manager sends it, read leniently (`v0.3.60-3-gabc123` is
   * 0.3.60). With it, each node's `latest_version` (and what `/install` gives without `version`) is the highest
   * installable version whose `supported_app_version` range it satisfies (the usual one when none does). For example `v0.3.60`.
   */
  @ClientHint()
  comfyui_version?: string;

  /** Neutral alias of `comfyui_version`. */
  @ClientHint()
  app_version?: string;

  /**
   * How the host application is installed: `desktop-win`, `git-windows`, `desktop-mac`, `git-mac`, `git-linux`,
   * `other`. With it, the version is chosen among those that support its OS. For example `git-linux`.
   */
  @ClientHint()
  form_factor?: string;
}

export class NodeListQueryDto extends IntersectionType(CatalogQueryDto, CompatibilityQueryDto) {
  /** Only nodes whose own row or any of whose versions changed after this instant (ISO 8601 date-time; without a zone, UTC), for example `2026-01-01T00:00:00Z`. */
  @IsOptional()
  @IsISO8601({ strict: true, strictSeparator: true })
  timestamp?: string;

  /** Only these nodes (repeat the parameter; at most 100 in all with `node_id[]`), ids matched ignoring case; unknown ids are simply absent. */
  @QueryList(MAX_NODE_ID_FILTER, 100)
  node_id?: string[];

  /** `node_id` as clients that name arrays with brackets send it. */
  @ApiProperty({ name: 'node_id[]', required: false, isArray: true, type: String })
  @QueryList(MAX_NODE_ID_FILTER, 100)
  'node_id[]'?: string[];

  /**
   * Sort order (repeat for more keys, at most 10, applied in order): `field` (ascending) or `field;desc`. Fields: `downloads`
   * (alias `total_install`), `name`, `created_at`, `last_updated`, `rating`, `github_stars`, `search_ranking`,
   * `publisher_name` (alias `publisher_id`). Ties are broken by id. Without it: search_ranking, downloads (highest
   * first), then id. For example `downloads;desc`.
   */
  @QueryList(10, 64)
  sort?: string[];

  /** `true` answers from the database, never from the server's cache of replies. */
  @QueryFlag()
  latest?: boolean;
}

// Query parameters carry their examples in their descriptions: Swagger UI's "Try it out" would send an `example`
// as the parameter's value, filtering the first try down to nothing.

/** Query of GET /nodes/search: `search` ranks by relevance, and finds close ids and names when nothing matches. */
export class NodeSearchQueryDto extends CatalogQueryDto {
  /** Substring of the node's repository URL, ignoring case, for example `github.com/acme`. */
  @IsOptional()
  @IsString()
  @MaxLength(200)
  repository_url_search?: string;

  /** Nodes whose latest version provides a node class whose name contains this, ignoring case, for example `Upscale`. */
  @IsOptional()
  @IsString()
  @MaxLength(200)
  comfy_node_search?: string;
}

/** Query of GET /nodes/{nodeId}. */
export class NodeQueryDto {
  /** Accepted as the public registry's clients may send it; `translations` is always shown. */
  @QueryFlag()
  include_translations?: boolean;
}

/** Query of GET /publishers/{publisherId}/nodes. */
export class PublisherNodesQueryDto {
  /** The publisher's members and admins: list banned nodes too. Ignored for everyone else. */
  @QueryFlag()
  include_banned?: boolean;
}

/** Query of GET /nodes/{nodeId}/versions. */
export class NodeVersionListQueryDto {
  /** Only versions with one of these statuses (repeat the parameter); without it every status but deleted. Deleted versions are listed to admins only. */
  @ApiProperty({ required: false, isArray: true, enum: NODE_VERSION_STATUSES })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? [value] : value))
  @IsArray()
  @ArrayMaxSize(NODE_VERSION_STATUSES.length)
  @IsIn(NODE_VERSION_STATUSES, { each: true })
  statuses?: NodeVersionStatus[];
}

/** Query of GET /nodes/{nodeId}/install. */
export class InstallQueryDto extends CompatibilityQueryDto {
  /** The semantic version to install; without it, the node's latest_version (chosen for the app version and form factor when given), for example `1.0.0`. */
  @IsOptional()
  @IsString()
  @MaxLength(256)
  version?: string;

}

export class NodeListDto extends PageDto {
  nodes!: NodeDto[];
}
