import { IsIn, IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';
import { IsHttpUrl } from '../../common/validation/validators';
import { PUBLISHER_ROLES, PublisherRole } from '../entities/publisher-member.entity';

export const PUBLISHER_ID_PATTERN = /^[a-z][a-z0-9-]{0,63}$/;

export class CreatePublisherDto {
  /** Lower-case letters, digits and dashes, starting with a letter, at most 64 characters. @example acme-nodes */
  @Matches(PUBLISHER_ID_PATTERN, { message: 'id must match ^[a-z][a-z0-9-]{0,63}$' })
  id!: string;

  /** @example Acme Nodes */
  @IsString()
  @Length(1, 256)
  name!: string;

  @IsOptional()
  @IsString()
  @MaxLength(5000)
  description?: string;

  @IsOptional()
  @IsHttpUrl()
  @MaxLength(2048)
  website?: string;

  /** Where users get help: a URL or an e-mail address. */
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  support?: string;

  @IsOptional()
  @IsHttpUrl()
  @MaxLength(2048)
  source_code_repo?: string;

  /** URL of the publisher's logo. */
  @IsOptional()
  @IsHttpUrl()
  @MaxLength(2048)
  logo?: string;
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
  createdAt!: string;
  /** Present on GET /publishers/{publisherId}; omitted where a publisher is embedded in a node. */
  members?: PublisherMemberDto[];
}
