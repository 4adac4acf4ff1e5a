import { absentIfNull, omitAbsent } from '../../common/replies/omit-absent';
import { UserDto } from '../../users/dto/user.dto';
import { PublisherMemberEntity } from '../entities/publisher-member.entity';
import { PublisherEntity } from '../entities/publisher.entity';
import { PublisherDto, PublisherFieldsDto, PublisherMemberDto } from './publisher.dto';

/** One object literal (see absentIfNull): every node of a catalog page carries its publisher. */
export function toPublisherDto(publisher: PublisherEntity): PublisherDto {
  return {
    id: publisher.id,
    name: publisher.name,
    description: absentIfNull(publisher.description),
    website: absentIfNull(publisher.website),
    support: absentIfNull(publisher.support),
    source_code_repo: absentIfNull(publisher.sourceCodeRepo),
    logo: absentIfNull(publisher.logo),
    status: publisher.status,
    createdAt: publisher.createdAt.toISOString(),
  };
}

/** `user`: the member's name and e-mail, from the users module. */
export function toPublisherMemberDto(
  member: PublisherMemberEntity,
  user: Pick<UserDto, 'name' | 'email'> | undefined,
  showEmail: boolean,
): PublisherMemberDto {
  return {
    id: member.id,
    role: member.role,
    user: omitAbsent({
      id: member.userId,
      name: user?.name ?? '',
      email: showEmail ? user?.email : undefined,
    }),
  };
}

/** A publisher field a request may write, as the request names it. */
type PublisherField = keyof PublisherFieldsDto | 'name';

/** Request field → entity property, for every publisher field a request may write. */
const PUBLISHER_FIELD_PROPERTIES: Record<PublisherField, keyof PublisherEntity> = {
  name: 'name',
  description: 'description',
  website: 'website',
  support: 'support',
  source_code_repo: 'sourceCodeRepo',
  logo: 'logo',
};

/** The columns a merge-patch sets (docs/api-rules.md §10): each field it gives, null clearing it; server-managed fields are not among them. */
export function publisherChanges(input: PublisherFieldsDto & { name?: string }): Partial<PublisherEntity> {
  const changes: Partial<PublisherEntity> = {};
  for (const [field, property] of Object.entries(PUBLISHER_FIELD_PROPERTIES) as [PublisherField, keyof PublisherEntity][]) {
    if (input[field] !== undefined) Object.assign(changes, { [property]: input[field] });
  }
  return changes;
}
