import { isoTime } from '../../common/replies/iso-time';
import { absentIfNull, omitAbsent } from '../../common/replies/omit-absent';
import { UserDto } from '../../users/dto/user.dto';
import { PublisherMemberEntity } from '../entities/publisher-member.entity';
import { PublisherEntity } from '../entities/publisher.entity';
import { PublisherDto, PublisherMemberDto } from './publisher.dto';

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
    createdAt: isoTime(publisher.createdAt),
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
