import { OmitType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsObject, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { UpdateNodeDto } from './node.dto';
import { CreateNodeVersionDto, NodeVersionDto } from './node-version.dto';

/** The version part of a CLI publish: as the bearer form, without downloadUrl (the archive upload sets it). */
export class PublishedVersionFieldsDto extends OmitType(CreateNodeVersionDto, ['downloadUrl'] as const) {}

/**
 * The public registry's publish body, as its publishing CLI sends it with no
 * Authorization header (docs/api-rules.md §6). The token authenticates exactly as a
 * bearer token would.
 */
export class PublishNodeVersionDto {
  /**
   * A personal access token of a member of the publisher (the same tokens as `Authorization: Bearer`).
   * Missing or empty: 401, unless the request carries a valid bearer header instead.
   */
  @IsOptional()
  @IsString()
  @MaxLength(512)
  personal_access_token?: string;

  /** The node, created when missing or updated as a merge-patch with the fields given (`id` must match the path). */
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => UpdateNodeDto)
  node!: UpdateNodeDto;

  /** The version to publish. It stays NodeVersionStatusPending until its archive is uploaded to `signedUrl`. */
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => PublishedVersionFieldsDto)
  node_version!: PublishedVersionFieldsDto;
}

export class PublishedNodeVersionDto {
  /** The new version, NodeVersionStatusPending until its archive arrives. */
  node_version!: NodeVersionDto;
  /** Where to `PUT` the archive (Content-Type: application/zip) once, within an hour. */
  signedUrl!: string;
}
