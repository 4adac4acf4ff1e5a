import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Driver } from 'typeorm/driver/Driver';
import { JoinedEntity, PreparedFindOne, PreparedSelect, SelectedRow } from '../database/prepared-statements';
import { PublisherMemberEntity, PublisherRole } from './entities/publisher-member.entity';
import { PublisherEntity } from './entities/publisher.entity';

/** The publisher's columns in the publisher-with-role query. */
const WITH_ROLE_PUBLISHER: JoinedEntity = { target: PublisherEntity, alias: 'p' };

/**
 * The caller's role in a publisher, for a query that already has that
 * publisher's id in `publisherIdColumn` (an escaped `alias.column`): the
 * column to select first after the query's entities (see memberRoleOf) and
 * the LEFT JOIN on the membership, whose user id is the query's first
 * parameter (SQLite's are positional).
 */
export function memberRoleJoin(driver: Driver, publisherIdColumn: string): { select: string; join: string } {
  const m = driver.escape('m');
  return {
    select: `${m}.${driver.escape('role')} AS ${driver.escape('m_role')}`,
    join:
      ` LEFT JOIN ${driver.escape('publisher_members')} ${m} ON ${m}.${driver.escape('publisher_id')} = ${publisherIdColumn}` +
      ` AND ${m}.${driver.escape('user_id')} = ${driver.createParameter('userId', 0)}`,
  };
}

/** The role a row of a query with memberRoleJoin selected; null when the user is not a member. */
export function memberRoleOf(row: SelectedRow): PublisherRole | null {
  return (row.extra(0) as PublisherRole | null) ?? null;
}

/** Data access for the publisher aggregate: the publisher and its members. */
@Injectable()
export class PublishersRepository {
  private readonly publisherById = new PreparedFindOne(PublisherEntity, [['id']]);
  private readonly membership = new PreparedFindOne(PublisherMemberEntity, [['publisherId', 'userId']]);
  private readonly publisherWithRole = new PreparedSelect([WITH_ROLE_PUBLISHER], (dataSource, selectList) => {
    const { driver } = dataSource;
    const p = driver.escape(WITH_ROLE_PUBLISHER.alias);
    const role = memberRoleJoin(driver, `${p}.${driver.escape('id')}`);
    return (
      `SELECT ${selectList}, ${role.select} FROM ${driver.escape('publishers')} ${p}${role.join}` +
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
    const row = await this.publisherWithRole.first(manager, [userId, publisherId]);
    const publisher = row?.entity<PublisherEntity>(WITH_ROLE_PUBLISHER);
    return row && publisher ? { publisher, role: memberRoleOf(row) } : null;
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
