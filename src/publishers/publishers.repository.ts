import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { hydrate, JoinedEntity, PreparedFindOne, PreparedSql, selectColumns } from '../database/prepared-statements';
import { PublisherMemberEntity, PublisherRole } from './entities/publisher-member.entity';
import { PublisherEntity } from './entities/publisher.entity';

/** The publisher's columns in the publisher-with-role query. */
const WITH_ROLE_PUBLISHER: JoinedEntity = { target: PublisherEntity, alias: 'p' };

/** Data access for the publisher aggregate: the publisher and its members. */
@Injectable()
export class PublishersRepository {
  private readonly publisherById = new PreparedFindOne(PublisherEntity, [['id']]);
  private readonly membership = new PreparedFindOne(PublisherMemberEntity, [['publisherId', 'userId']]);
  // Parameters in the order they appear (SQLite's are positional).
  private readonly publisherWithRole = new PreparedSql((dataSource) => {
    const { driver } = dataSource;
    const [p, m] = [driver.escape(WITH_ROLE_PUBLISHER.alias), driver.escape('m')];
    return (
      `SELECT ${selectColumns(dataSource, WITH_ROLE_PUBLISHER)}, ${m}.${driver.escape('role')} AS ${driver.escape('m_role')}` +
      ` FROM ${driver.escape('publishers')} ${p} LEFT JOIN ${driver.escape('publisher_members')} ${m}` +
      ` ON ${m}.${driver.escape('publisher_id')} = ${p}.${driver.escape('id')} AND ${m}.${driver.escape('user_id')} = ${driver.createParameter('userId', 0)}` +
      ` WHERE ${p}.${driver.escape('id')} = ${driver.createParameter('publisherId', 1)}`
    );
  });

  constructor(private readonly dataSource: DataSource) {}

  findById(id: string, manager: EntityManager = this.dataSource.manager): Promise<PublisherEntity | null> {
    return this.publisherById.run(manager, { id });
  }

  findMembership(publisherId: string, userId: string, manager: EntityManager = this.dataSource.manager) {
    return this.membership.run(manager, { publisherId, userId });
  }

  /** The publisher and the user's role in it (null when not a member), in one query; null when there is no such publisher. */
  async findWithRole(
    publisherId: string,
    userId: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<{ publisher: PublisherEntity; role: PublisherRole | null } | null> {
    const [row] = await manager.query<Record<string, unknown>[]>(this.publisherWithRole.for(manager.connection), [userId, publisherId]);
    const publisher = row && hydrate<PublisherEntity>(manager.connection, WITH_ROLE_PUBLISHER, row);
    return publisher ? { publisher, role: (row.m_role as PublisherRole | null) ?? null } : null;
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
