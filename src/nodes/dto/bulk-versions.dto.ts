import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsDefined, IsObject, IsString, Length, ValidateNested } from 'class-validator';
import { NodeVersionDto } from './node-version.dto';

/** The most pairs one bulk lookup takes (docs/api-rules.md §9.2). */
export const MAX_BULK_VERSIONS = 100;

export class NodeVersionIdentifierDto {
  /** @example acme-upscaler */
  @IsString()
  @Length(1, 100)
  node_id!: string;

  /** A semantic version. @example 1.0.0 */
  @IsString()
  @Length(1, 256)
  version!: string;
}

export class BulkNodeVersionsRequestDto {
  /** 1 to 100 pairs. */
  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_BULK_VERSIONS)
  // ValidateNested alone lets an array through as an item (it validates its contents instead).
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => NodeVersionIdentifierDto)
  node_versions!: NodeVersionIdentifierDto[];
}

export const BULK_VERSION_STATUSES = ['success', 'not_found', 'error'] as const;

export class BulkNodeVersionResultDto {
  identifier!: NodeVersionIdentifierDto;
  /** `not_found`: no such node or version (or deleted); `error`: it exists but cannot be shown (banned). */
  @ApiProperty({ enum: BULK_VERSION_STATUSES })
  status!: (typeof BULK_VERSION_STATUSES)[number];
  /** With `success`. */
  node_version?: NodeVersionDto;
  /** With `error`. */
  error_message?: string;
}

export class BulkNodeVersionsDto {
  /** One entry per pair, in request order. */
  node_versions!: BulkNodeVersionResultDto[];
}
