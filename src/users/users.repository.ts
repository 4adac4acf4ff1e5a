import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, FindOneOptions, In, IsNull, LessThan } from 'typeorm';
import { AccessTokenEntity } from './entities/access-token.entity';
import { CreditLedgerEntryEntity } from './entities/credit-ledger-entry.entity';
import { CreditReservationEntity } from './entities/credit-reservation.entity';
import { UserEntity } from './entities/user.entity';

/** An open reservation: what was taken from whom, and for which Idempotency-Key (if any). */
export type OpenReservation = Omit<CreditReservationEntity, 'createdAt'>;

/** What open reservations hold right now, across all users and instances. */
export interface OpenReservations {
  credits: number;
  /** When the oldest still open was taken; null when none is. */
  oldestCreatedAt: Date | null;
}

/** Data access for the user aggregate: the user, its tokens and its credit ledger. */
@Injectable()
export class UsersRepository {
  constructor(private readonly dataSource: DataSource) {}

  findById(id: string, manager: EntityManager = this.dataSource.manager, options: Pick<FindOneOptions, 'lock'> = {}) {
    return manager.findOne(UserEntity, { where: { id }, ...options });
  }

  findByIds(ids: string[]): Promise<UserEntity[]> {
    return this.dataSource.manager.findBy(UserEntity, { id: In(ids) });
  }

  findByEmail(email: string, manager: EntityManager = this.dataSource.manager) {
    return manager.findOne(UserEntity, { where: { email } });
  }

  async insertUser(manager: EntityManager, user: UserEntity): Promise<UserEntity> {
    await manager.insert(UserEntity, user);
    return user;
  }

  /**
   * Takes `amount` credits in one conditional UPDATE, only if the balance
   * covers it, so concurrent reservations can never drive a balance
   * negative: SQLite runs one writer at a time, and PostgreSQL re-checks the
   * condition on the row as a concurrent writer committed it. Returns the
   * balance after (read in the same transaction, whose write keeps the row
   * locked on PostgreSQL), or null when it did not cover the amount.
   */
  async takeCreditsIfAvailable(manager: EntityManager, userId: string, amount: number): Promise<number | null> {
    const { affected } = await manager
      .createQueryBuilder()
      .update(UserEntity)
      .set({ credits: () => 'credits - :amount' })
      .where({ id: userId })
      .andWhere('credits >= :amount', { amount })
      .execute();
    if (affected !== 1) return null;
    const { credits } = await manager.findOneOrFail(UserEntity, { select: { id: true, credits: true }, where: { id: userId } });
    return credits;
  }

  /** Records an open reservation, in the transaction that took its credits. */
  async insertReservation(manager: EntityManager, reservation: CreditReservationEntity): Promise<void> {
    await manager.insert(CreditReservationEntity, reservation);
  }

  /**
   * Deletes an open reservation and returns it, or null when it is already
   * closed (settled, released, or released by the recovery sweep). The DELETE
   * is the claim: on PostgreSQL a racing second DELETE waits for the first to
   * commit and then deletes nothing; on SQLite writers are serialised.
   */
  async closeReservation(manager: EntityManager, id: string): Promise<OpenReservation | null> {
    const reservation = await manager.findOne(CreditReservationEntity, {
      select: { id: true, userId: true, amount: true, idempotencyKey: true },
      where: { id },
    });
    if (!reservation) return null;
    const { affected } = await manager.delete(CreditReservationEntity, { id });
    return affected === 1 ? reservation : null;
  }

  /** Ids of reservations opened before `cutoff`, oldest first. */
  async reservationsOpenedBefore(cutoff: Date, limit: number): Promise<string[]> {
    const rows = await this.dataSource.manager.find(CreditReservationEntity, {
      select: { id: true },
      where: { createdAt: LessThan(cutoff) },
      order: { createdAt: 'ASC' },
      take: limit,
    });
    return rows.map((row) => row.id);
  }

  /** The credits all open reservations hold, and when the oldest was taken (each from its own index or a small table). */
  async openReservations(): Promise<OpenReservations> {
    const credits = await this.dataSource.manager.sum(CreditReservationEntity, 'amount');
    const [oldest] = await this.dataSource.manager.find(CreditReservationEntity, {
      select: { id: true, createdAt: true },
      order: { createdAt: 'ASC' },
      take: 1,
    });
    return { credits: credits ?? 0, oldestCreatedAt: oldest?.createdAt ?? null };
  }

  /** Sets the webhook secret only if there is none yet; returns the secret in force. */
  async ensureWebhookSecret(manager: EntityManager, userId: string, candidate: string): Promise<string | null> {
    await manager.update(UserEntity, { id: userId, webhookSecret: IsNull() }, { webhookSecret: candidate });
    return (await this.findById(userId, manager))?.webhookSecret ?? null;
  }

  async setWebhookSecret(manager: EntityManager, userId: string, secret: string): Promise<void> {
    await manager.update(UserEntity, { id: userId }, { webhookSecret: secret });
  }

  async setCredits(manager: EntityManager, userId: string, credits: number): Promise<void> {
    await manager.update(UserEntity, { id: userId }, { credits });
  }

  /** The owner of an unrevoked token with this hash, in one query. */
  findUserByActiveTokenHash(tokenHash: string): Promise<UserEntity | null> {
    return this.dataSource.manager
      .createQueryBuilder(UserEntity, 'user')
      .innerJoin(AccessTokenEntity, 'token', 'token.user_id = user.id')
      .where('token.token_hash = :tokenHash AND token.revoked_at IS NULL', { tokenHash })
      .getOne();
  }

  async insertToken(manager: EntityManager, token: AccessTokenEntity): Promise<AccessTokenEntity> {
    await manager.insert(AccessTokenEntity, token);
    return token;
  }

  /** Revokes one of the user's live tokens; returns its hash, or undefined when there is no such token. */
  async revokeToken(manager: EntityManager, userId: string, tokenId: string, at: Date): Promise<string | undefined> {
    const token = await manager.findOne(AccessTokenEntity, { where: { id: tokenId, userId, revokedAt: IsNull() } });
    if (!token) return undefined;
    await manager.update(AccessTokenEntity, { id: tokenId }, { revokedAt: at });
    return token.tokenHash;
  }

  /** Appends an entry and returns its id, leaving `entry` as given (TypeORM's insert writes the generated id into what it gets). */
  async appendLedgerEntry(manager: EntityManager, entry: Omit<CreditLedgerEntryEntity, 'id'>): Promise<number> {
    const { identifiers } = await manager.insert(CreditLedgerEntryEntity, { ...entry });
    const [{ id }] = identifiers as Array<Pick<CreditLedgerEntryEntity, 'id'>>;
    return id;
  }

  /** Names the task an entry was for, once the task exists (a reservation is recorded before it does). */
  async linkLedgerEntryToTask(manager: EntityManager, entryId: number, taskId: string): Promise<void> {
    await manager.update(CreditLedgerEntryEntity, { id: entryId }, { taskId });
  }

  ledgerPage(userId: string, offset: number, limit: number): Promise<[CreditLedgerEntryEntity[], number]> {
    return this.dataSource.manager.findAndCount(CreditLedgerEntryEntity, {
      where: { userId },
      order: { id: 'DESC' },
      skip: offset,
      take: limit,
    });
  }
}
