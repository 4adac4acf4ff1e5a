import { omitAbsent } from '../../common/replies/omit-absent';
import { PublisherMemberEntity } from '../entities/publisher-member.entity';
import { PublisherEntity } from '../entities/publisher.entity';
import { PublisherDto, PublisherMemberDto } from './publisher.dto';

export function toPublisherDto(publisher: PublisherEntity): PublisherDto {
  return omitAbsent({
    id: publisher.id,
    name: publisher.name,
    description: publisher.description,
    website: publisher.website,
    support: publisher.support,
    source_code_repo: publisher.sourceCodeRepo,
    logo: publisher.logo,
    createdAt: publisher.createdAt.toISOString(),
  });
}

export function toPublisherMemberDto(member: PublisherMemberEntity, showEmail: boolean): PublisherMemberDto {
  const user = member.user;
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
