import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { PreparedFindOne } from '../database/prepared-statements';
import { PublisherMemberEntity } from './entities/publisher-member.entity';
import { PublisherEntity } from './entities/publisher.entity';

/** Data access for the publisher aggregate: the publisher and its members. */
@Injectable()
export class PublishersRepository {
  private readonly publisherById = new PreparedFindOne(PublisherEntity, [['id']]);
  private readonly membership = new PreparedFindOne(PublisherMemberEntity, [['publisherId', 'userId']]);

  constructor(private readonly dataSource: DataSource) {}

  findById(id: string, manager: EntityManager = this.dataSource.manager): Promise<PublisherEntity | null> {
    return this.publisherById.run(manager, { id });
  }

  findMembership(publisherId: string, userId: string, manager: EntityManager = this.dataSource.manager) {
    return this.membership.run(manager, { publisherId, userId });
  }

  membersWithUsers(publisherId: string): Promise<PublisherMemberEntity[]> {
    return this.dataSource.manager.find(PublisherMemberEntity, {
      where: { publisherId },
      relations: { user: true },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
  }

  /** INSERT, not save(): save() would update a publisher that a concurrent request created first. */
  async insertPublisher(manager: EntityManager, publisher: PublisherEntity): Promise<void> {
    await manager.insert(PublisherEntity, publisher);
  }

  insertMember(manager: EntityManager, member: PublisherMemberEntity): Promise<PublisherMemberEntity> {
    return manager.save(PublisherMemberEntity, member);
  }
}
