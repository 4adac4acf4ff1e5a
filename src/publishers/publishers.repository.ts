import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, FindOneOptions, In } from 'typeorm';
import { PublisherMemberEntity, PublisherRole } from './entities/publisher-member.entity';
import { PublisherEntity } from './entities/publisher.entity';

/** Data access for the publisher aggregate: the publisher and its members. */
@Injectable()
export class PublishersRepository {
  constructor(private readonly dataSource: DataSource) {}

  findById(id: string, manager: EntityManager = this.dataSource.manager): Promise<PublisherEntity | null> {
    return manager.findOneBy(PublisherEntity, { id });
  }

  /** The publishers with these ids; unknown ids are left out. */
  findByIds(ids: string[]): Promise<PublisherEntity[]> {
    return this.dataSource.manager.findBy(PublisherEntity, { id: In(ids) });
  }

  findMembership(publisherId: string, userId: string, manager: EntityManager = this.dataSource.manager) {
    return manager.findOneBy(PublisherMemberEntity, { publisherId, userId });
  }

  /** The publisher and the user's role in it (null when not a member), in one query; null when there is no such publisher. */
  async findWithRole(
    publisherId: string,
    userId: string,
    manager: EntityManager = this.dataSource.manager,
    { lock }: Pick<FindOneOptions, 'lock'> = {},
  ): Promise<{ publisher: PublisherEntity; role: PublisherRole | null } | null> {
    const query = manager
      .createQueryBuilder(PublisherEntity, 'publisher')
      .leftJoin(PublisherMemberEntity, 'member', 'member.publisherId = publisher.id AND member.userId = :userId', { userId })
      .addSelect('member.role', 'role')
      .where({ id: publisherId });
    if (lock && lock.mode !== 'optimistic') query.setLock(lock.mode, undefined, lock.tables);
    const {
      entities: [publisher],
      raw: [row],
    } = await query.getRawAndEntities<{ role: PublisherRole | null }>();
    return publisher ? { publisher, role: row.role } : null;
  }

  /** The publisher's members, oldest first. */
  members(publisherId: string): Promise<PublisherMemberEntity[]> {
    return this.dataSource.manager.find(PublisherMemberEntity, {
      where: { publisherId },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
  }

  /** INSERT, not save(): save() would update a publisher that a concurrent request created first. */
  async insertPublisher(manager: EntityManager, publisher: PublisherEntity): Promise<void> {
    await manager.insert(PublisherEntity, publisher);
  }

  /** Sets the given columns; false when there is no such publisher. */
  async updatePublisher(manager: EntityManager, id: string, changes: Partial<PublisherEntity>): Promise<boolean> {
    const { affected } = await manager.update(PublisherEntity, { id }, changes);
    return affected === 1;
  }

  async insertMember(manager: EntityManager, member: PublisherMemberEntity): Promise<PublisherMemberEntity> {
    await manager.insert(PublisherMemberEntity, member);
    return member;
  }
}
