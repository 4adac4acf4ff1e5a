import { ApiProperty } from '@nestjs/swagger';
import { IsArray, IsIn, IsISO8601, IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';
import { IsHttpUrl, NotNullable, Nullable } from '../../common/validation/validators';
import { PUBLISHER_ROLES, PublisherRole } from '../entities/publisher-member.entity';
import { PUBLISHER_STATUSES, PublisherStatus } from '../entities/publisher.entity';
import { ApiDateTime } from '../../common/openapi/api-date-time.decorator';

export const PUBLISHER_ID_PATTERN = /^[a-z][a-z0-9-]{0,63}$/;

/** Publisher fields an owner writes, shared by create and update; each optional, `null` clears it. */
export class PublisherFieldsDto {
  @Nullable()
  @IsString()
  @MaxLength(5000)
  description?: string | null;

  @Nullable()
  @IsHttpUrl()
  @MaxLength(2048)
  website?: string | null;

  /** Where users get help: a URL or an e-mail address. */
  @Nullable()
  @IsString()
  @MaxLength(2048)
  support?: string | null;

  @Nullable()
  @IsHttpUrl()
  @MaxLength(2048)
  source_code_repo?: string | null;

  /** URL of the publisher's logo. */
  @Nullable()
  @IsHttpUrl()
  @MaxLength(2048)
  logo?: string | null;
}

export class CreatePublisherDto extends PublisherFieldsDto {
  /** Lower-case letters, digits and dashes, starting with a letter, at most 64 characters. @example acme-nodes */
  @Matches(PUBLISHER_ID_PATTERN, { message: 'id must be 1-64 lower-case letters, digits or dashes, starting with a letter (^[a-z][a-z0-9-]{0,63}$)' })
  id!: string;

  /** @example Acme Nodes */
  @IsString()
  @Length(1, 256)
  name!: string;
}

/**
 * Partial update (JSON merge-patch): omitted fields stay, null clears.
 * Server-managed fields are accepted and ignored so a GET → edit → PUT round
 * trip works.
 */
export class UpdatePublisherDto extends PublisherFieldsDto {
  /** Optional; must equal the path's publisher id. */
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
  createdAt?: string;

  /** Server-managed: accepted and ignored (members are added with POST /publishers/{publisherId}/members). */
  @ApiProperty({ required: false, type: () => PublisherMemberDto, isArray: true, readOnly: true })
  @IsOptional()
  @IsArray()
  members?: object[];

  /** Server-managed: accepted and ignored (admins ban a publisher with POST /publishers/{publisherId}/ban). */
  @ApiProperty({ required: false, enum: PUBLISHER_STATUSES, readOnly: true })
  @IsOptional()
  @IsIn(PUBLISHER_STATUSES)
  status?: PublisherStatus;
}

export class AddMemberDto {
  /** Id of an existing user. */
  @IsString()
  @Length(1, 64)
  user_id!: string;

  /** `owner` may also manage the publisher and its members; `member` manages its nodes. */
  @IsIn(PUBLISHER_ROLES)
  role!: PublisherRole;
}

export class MemberUserDto {
  id!: string;
  name!: string;
  /** Shown only to the publisher's members and to admins. */
  email?: string;
}

export class PublisherMemberDto {
  id!: string;
  /** @example owner */
  role!: PublisherRole;
  user!: MemberUserDto;
}

export class PublisherDto {
  id!: string;
  name!: string;
  description?: string;
  website?: string;
  support?: string;
  source_code_repo?: string;
  logo?: string;
  /** @example PublisherStatusActive */
  @ApiProperty({ enum: PUBLISHER_STATUSES })
  status!: PublisherStatus;
  @ApiDateTime()
  createdAt!: string;
  /** Present on GET /publishers/{publisherId}; omitted where a publisher is embedded in a node. */
  members?: PublisherMemberDto[];
}
