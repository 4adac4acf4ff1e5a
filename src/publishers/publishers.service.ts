import { BadRequestException, ConflictException, ForbiddenException, Injectable, NotFoundException } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { EntityManager, FindOneOptions } from 'typeorm';
import { Principal } from '../auth/principal';
import { TransactionRunner } from '../database/transaction-runner';
import { UsersService } from '../users/users.service';
import { AddMemberDto, CreatePublisherDto, PublisherDto, PublisherMemberDto, UpdatePublisherDto } from './dto/publisher.dto';
import { publisherChanges, toPublisherDto, toPublisherMemberDto } from './dto/publisher.mapper';
import { PublisherMemberEntity, PublisherRole } from './entities/publisher-member.entity';
import { PublisherEntity } from './entities/publisher.entity';
import { PublishersRepository } from './publishers.repository';

function publisherNotFound(publisherId: string): NotFoundException {
  return new NotFoundException(`publisher '${publisherId}' not found`);
}

/**
 * Whether the user's membership is suspended: a banned publisher refuses its
 * members (docs/api-rules.md §10), admins excepted (the callers check that).
 */
function isSuspendedMember({ publisher, role }: { publisher: PublisherEntity; role: PublisherRole | null }): boolean {
  return role !== null && publisher.status === 'PublisherStatusBanned';
}

const PUBLISHER_BANNED = 'publisher banned';

/** What a module keeping a copy of publishers' names does with a new one (see PublishersService.whenRenamed). */
export type RenameListener = (manager: EntityManager, publisherId: string, name: string) => Promise<void>;

@Injectable()
export class PublishersService {
  private readonly renameListeners: RenameListener[] = [];

  constructor(
    private readonly publishers: PublishersRepository,
    private readonly users: UsersService,
    private readonly tx: TransactionRunner,
  ) {}

  /** Creates a publisher owned by the caller. */
  async create(caller: Principal, input: CreatePublisherDto): Promise<PublisherDto> {
    await this.tx.run(async (manager) => {
      if (await this.publishers.findById(input.id, manager)) {
        throw new ConflictException(`publisher '${input.id}' already exists`);
      }
      const now = new Date();
      await this.publishers.insertPublisher(
        manager,
        Object.assign(new PublisherEntity(), {
          id: input.id,
          name: input.name,
          description: input.description ?? null,
          website: input.website ?? null,
          support: input.support ?? null,
          sourceCodeRepo: input.source_code_repo ?? null,
          logo: input.logo ?? null,
          status: 'PublisherStatusActive',
          createdAt: now,
        }),
      );
      await this.insertMember(manager, input.id, caller.id, 'owner', now);
    });
    return this.get(input.id, caller);
  }

  /** The publisher with its members; member e-mails only for its members and admins. */
  async get(publisherId: string, viewer?: Principal): Promise<PublisherDto> {
    const publisher = await this.requirePublisher(publisherId);
    const members = await this.publishers.members(publisherId);
    const role = viewer === undefined ? undefined : members.find((m) => m.userId === viewer.id)?.role;
    const isMember = role !== undefined;
    // A banned publisher's members' tokens are refused on its routes (docs/api-rules.md §10), this read included, as on its nodes' list.
    if (isMember && !viewer?.isAdmin && isSuspendedMember({ publisher, role })) throw new ForbiddenException(PUBLISHER_BANNED);
    const users = new Map((await this.users.findUsers(members.map((m) => m.userId))).map((user) => [user.id, user]));
    const showEmails = viewer !== undefined && (viewer.isAdmin || isMember);
    return { ...toPublisherDto(publisher), members: members.map((m) => toPublisherMemberDto(m, users.get(m.userId), showEmails)) };
  }

  /** The publishers with these ids; unknown ids are left out. */
  findByIds(ids: string[]): Promise<PublisherEntity[]> {
    return this.publishers.findByIds(ids);
  }

  /**
   * `listener` is called, inside the rename's transaction, each time a
   * publisher is given a new name: a module that keeps a copy of the name
   * (nodes sort by it) updates it there, so no reader sees the two differ.
   */
  whenRenamed(listener: RenameListener): void {
    this.renameListeners.push(listener);
  }

  /**
   * PUT /publishers/{publisherId} (owners and admins): a merge-patch of the
   * publisher's fields; the reply is GET /publishers/{publisherId}'s.
   */
  async update(caller: Principal, publisherId: string, input: UpdatePublisherDto): Promise<PublisherDto> {
    if (input.id !== undefined && input.id !== publisherId) {
      throw new BadRequestException(`id '${input.id}' in the body does not match publisher '${publisherId}' in the path`);
    }
    const changes = publisherChanges(input);
    await this.tx.run(async (manager) => {
      await this.requireRole(caller, publisherId, 'owner', manager);
      // A round trip may send only server-managed fields: nothing to write (and TypeORM refuses an empty UPDATE).
      if (Object.keys(changes).length > 0) await this.publishers.updatePublisher(manager, publisherId, changes);
      if (changes.name !== undefined) {
        for (const listener of this.renameListeners) await listener(manager, publisherId, changes.name);
      }
    });
    return this.get(publisherId, caller);
  }

  /**
   * Bans the publisher, inside the caller's transaction (the nodes module
   * bans its nodes in the same one); 404 when it does not exist.
   */
  async ban(manager: EntityManager, publisherId: string): Promise<void> {
    if (!(await this.publishers.updatePublisher(manager, publisherId, { status: 'PublisherStatusBanned' }))) {
      throw publisherNotFound(publisherId);
    }
  }

  /**
   * The caller's role in the publisher; null when not a member (or no such
   * publisher). A member of a banned publisher who is not an admin is refused
   * here with 403, so every caller that passes the role on to assertRole
   * refuses them too.
   */
  async roleOf(publisherId: string, caller: Principal, manager?: EntityManager): Promise<PublisherRole | null> {
    return (await this.membership(publisherId, caller, manager))?.role ?? null;
  }

  /** Whether the caller is a member who may act for the publisher (not one of a banned publisher); unlike roleOf, never a 403. */
  async actsFor(publisherId: string, caller: Principal): Promise<boolean> {
    const found = await this.publishers.findWithRole(publisherId, caller.id);
    return found !== null && found.role !== null && !isSuspendedMember(found);
  }

  /** roleOf, with the publisher it read (for a reply that shows it); null when there is no such publisher. */
  async membership(
    publisherId: string,
    caller: Principal,
    manager?: EntityManager,
  ): Promise<{ publisher: PublisherEntity; role: PublisherRole | null } | null> {
    const found = await this.publishers.findWithRole(publisherId, caller.id, manager);
    if (found && isSuspendedMember(found) && !caller.isAdmin) {
      throw new ForbiddenException(PUBLISHER_BANNED);
    }
    return found;
  }

  /** Adds a user to the publisher (owners and admins only). */
  async addMember(caller: Principal, publisherId: string, input: AddMemberDto): Promise<PublisherMemberDto> {
    await this.requireRole(caller, publisherId, 'owner');
    const user = await this.users.getUser(input.user_id);
    const member = await this.tx.run(async (manager) => {
      if (await this.publishers.findMembership(publisherId, input.user_id, manager)) {
        throw new ConflictException(`user '${input.user_id}' is already a member of publisher '${publisherId}'`);
      }
      return this.insertMember(manager, publisherId, input.user_id, input.role, new Date());
    });
    return toPublisherMemberDto(member, user, true);
  }

  /**
   * The publisher whose nodes the caller wants to change: 404 when it does not
   * exist, 403 when the caller is neither a member nor an admin, or a member
   * of a banned publisher.
   */
  requireNodeManager(caller: Principal, publisherId: string, manager?: EntityManager): Promise<PublisherEntity> {
    return this.requireRole(caller, publisherId, 'member', manager);
  }

  /**
   * requireNodeManager for a new node, inside its transaction: the
   * publisher's row is locked, so a ban or a rename of it either commits
   * before (and the node starts with what it set) or waits for the node's
   * commit (and then includes it). Creates in one publisher take turns, and
   * a ban or rename waiting for the row comes before those that arrive
   * after it (TransactionRunner.lockForUpdate).
   */
  requireNodeCreator(caller: Principal, publisherId: string, manager: EntityManager): Promise<PublisherEntity> {
    return this.requireRole(caller, publisherId, 'member', manager, this.tx.lockForUpdate('publisher'));
  }

  private async requireRole(
    caller: Principal,
    publisherId: string,
    role: PublisherRole,
    manager?: EntityManager,
    lock: Pick<FindOneOptions, 'lock'> = {},
  ): Promise<PublisherEntity> {
    const found = await this.publishers.findWithRole(publisherId, caller.id, manager, lock);
    if (!found) {
      throw publisherNotFound(publisherId);
    }
    if (!caller.isAdmin && isSuspendedMember(found)) {
      throw new ForbiddenException(PUBLISHER_BANNED);
    }
    this.assertRole(caller, publisherId, found.role, role);
    return found.publisher;
  }

  /**
   * 403 unless a caller whose role in the (existing) publisher is `callerRole`
   * (null: not a member) may act as `required`; for callers that looked the
   * role up themselves, with the row they needed anyway.
   */
  assertRole(caller: Principal, publisherId: string, callerRole: PublisherRole | null, required: PublisherRole): void {
    if (caller.isAdmin) {
      return;
    }
    if (!callerRole) {
      throw new ForbiddenException(`you are not a member of publisher '${publisherId}'`);
    }
    if (required === 'owner' && callerRole !== 'owner') {
      throw new ForbiddenException(`only an owner of publisher '${publisherId}' may do this`);
    }
  }

  /** The publisher; 404 when it does not exist. */
  async requirePublisher(publisherId: string, manager?: EntityManager): Promise<PublisherEntity> {
    const publisher = await this.publishers.findById(publisherId, manager);
    if (!publisher) {
      throw publisherNotFound(publisherId);
    }
    return publisher;
  }

  private insertMember(manager: EntityManager, publisherId: string, userId: string, role: PublisherRole, at: Date) {
    return this.publishers.insertMember(
      manager,
      Object.assign(new PublisherMemberEntity(), { id: randomUUID(), publisherId, userId, role, createdAt: at }),
    );
  }
}
