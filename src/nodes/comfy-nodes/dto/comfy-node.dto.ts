import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { plainToInstance, Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsJSON,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { ApiInteger } from '../../../common/openapi/api-integer.decorator';
import { APP_NODE_EXTRACT_OUTCOMES, AppNodeExtractOutcome } from '../extract-status';

/** The public registry's policies of a node class; accepted, not stored (docs/api-rules.md §9.3). */
const COMFY_NODE_POLICIES = ['ComfyNodePolicyActive', 'ComfyNodePolicyBanned', 'ComfyNodePolicyLocalOnly'] as const;

/** A node class as a version provides it. Fields with no value are left out. */
export class ComfyNodeDto {
  /** The class's name, the key of the pack's NODE_CLASS_MAPPINGS (how a workflow names it). */
  comfy_node_name!: string;
  /** UI category where the node is listed, used for grouping nodes. */
  category?: string;
  /** Brief description of the node's functionality or purpose (its display name, when extracted). */
  description?: string;
  /** Name of the entry-point function to execute the node. */
  function?: string;
  /** The input parameters: a string holding JSON text. */
  input_types?: string;
  /** The output types: a string holding a JSON array, e.g. `["IMAGE"]`. */
  return_types?: string;
  /** The outputs' names: a string holding a JSON array. */
  return_names?: string;
  /** Whether each output is a list. */
  output_is_list?: boolean[];
  /** Whether the node is deprecated. */
  deprecated?: boolean;
  /** Whether the node is experimental. */
  experimental?: boolean;
}

export class ComfyNodeListDto {
  /** A page of the version's node classes, ordered by name. */
  comfy_nodes!: ComfyNodeDto[];
  @ApiInteger()
  totalNumberOfPages!: number;
}

/** A node class as its publisher reports it; the JSON text fields as the replies send them. */
export class ComfyNodeInputDto {
  /** When given, the class's key in `nodes`. */
  @IsOptional()
  @IsString()
  @MaxLength(256)
  comfy_node_name?: string;

  @IsOptional()
  @IsString()
  @MaxLength(1024)
  category?: string;

  @IsOptional()
  @IsString()
  @MaxLength(5000)
  description?: string;

  @IsOptional()
  @IsString()
  @MaxLength(256)
  function?: string;

  /** A string holding JSON text. */
  @IsOptional()
  @IsJSON()
  @MaxLength(100_000)
  input_types?: string;

  /** A string holding JSON text (an array of type names). */
  @IsOptional()
  @IsJSON()
  @MaxLength(10_000)
  return_types?: string;

  /** A string holding JSON text (an array of output names). */
  @IsOptional()
  @IsJSON()
  @MaxLength(10_000)
  return_names?: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(1000)
  @IsBoolean({ each: true })
  output_is_list?: boolean[];

  @IsOptional()
  @IsBoolean()
  deprecated?: boolean;

  @IsOptional()
  @IsBoolean()
  experimental?: boolean;

  /** The public registry's policy field: accepted, not stored. */
  @ApiProperty({ enum: COMFY_NODE_POLICIES, required: false })
  @IsOptional()
  @IsIn(COMFY_NODE_POLICIES)
  policy?: (typeof COMFY_NODE_POLICIES)[number];
}

/** The public registry's build bookkeeping: accepted, not stored. */
export class ComfyNodeCloudBuildInfoDto {
  @IsOptional()
  @IsString()
  @MaxLength(256)
  build_id?: string;

  @IsOptional()
  @IsString()
  @MaxLength(256)
  location?: string;

  @IsOptional()
  @IsString()
  @MaxLength(256)
  project_id?: string;

  @IsOptional()
  @IsString()
  @MaxLength(256)
  project_number?: string;
}

/** `nodes` as a Map of validated classes, so each value is checked (and unknown fields refused) by name. */
function toClassMap({ value }: { value: unknown }): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  return new Map(Object.entries(value).map(([name, fields]) => [name, plainToInstance(ComfyNodeInputDto, fields as object)]));
}

/** The most classes a report names (its route's body limits refuse more, docs/request-bodies.md). */
export const MAX_CLASSES_PER_VERSION = 1000;

/**
 * The public registry's body (CreateComfyNodes): the version's node classes
 * by name, and the extraction's outcome. `status` wins when given; otherwise
 * `success: false` means `failed`, anything else `success`.
 */
@ApiExtraModels(ComfyNodeInputDto)
export class CreateComfyNodesDto {
  /** The version's classes by name (at most 1,000; names of 1 to 256 characters; `{}` for none); required unless the report is a failure. */
  @ApiPropertyOptional({ type: 'object', additionalProperties: { $ref: getSchemaPath(ComfyNodeInputDto) } })
  @IsOptional()
  @IsObject()
  @Transform(toClassMap)
  // ValidateNested alone lets an array through as a class (it validates its contents instead).
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  nodes?: Map<string, ComfyNodeInputDto>;

  /** Whether the extraction succeeded; `false` sets `app_node_extract_status` to `failed`. */
  @IsOptional()
  @IsBoolean()
  success?: boolean;

  /** The `app_node_extract_status` to set; must agree with `success` when both are given. */
  @ApiProperty({ enum: APP_NODE_EXTRACT_OUTCOMES, required: false })
  @IsOptional()
  @IsIn(APP_NODE_EXTRACT_OUTCOMES)
  status?: AppNodeExtractOutcome;

  /** Why the extraction failed (kept for the version's review); ignored when it succeeded. */
  @IsOptional()
  @IsString()
  @MaxLength(5000)
  reason?: string;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ComfyNodeCloudBuildInfoDto)
  cloud_build_info?: ComfyNodeCloudBuildInfoDto;
}
