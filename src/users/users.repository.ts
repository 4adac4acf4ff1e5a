import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, FindOneOptions, IsNull } from 'typeorm';
import { PreparedFindOne, PreparedUpdate } from '../database/prepared-statements';
import { AccessTokenEntity } from './entities/access-token.entity';
import { CreditLedgerEntryEntity } from './entities/credit-ledger-entry.entity';
import { UserEntity } from './entities/user.entity';

/** Data access for the user aggregate: the user, its tokens and its credit ledger. */
@Injectable()
export class UsersRepository {
  private readonly userById = new PreparedFindOne(UserEntity, [['id']]);
  private readonly userUpdate = new PreparedUpdate(UserEntity, ['id']);

  constructor(private readonly dataSource: DataSource) {}

  findById(id: string, manager: EntityManager = this.dataSource.manager, options: Pick<FindOneOptions, 'lock'> = {}) {
    return this.userById.run(manager, { id }, options);
  }

  findByEmail(email: string, manager: EntityManager = this.dataSource.manager) {
    return manager.findOne(UserEntity, { where: { email } });
  }

  insertUser(manager: EntityManager, user: UserEntity): Promise<UserEntity> {
    return manager.save(UserEntity, user);
  }

  /**
   * Takes `amount` credits in one conditional UPDATE, only if the balance
   * covers it: concurrent reservations can never drive a balance negative.
   */
  async takeCreditsIfAvailable(manager: EntityManager, userId: string, amount: number): Promise<boolean> {
    const result = await manager
      .createQueryBuilder()
      .update(UserEntity)
      .set({ credits: () => 'credits - :amount' })
      .where('id = :userId AND credits >= :amount', { userId, amount })
      .execute();
    return result.affected === 1;
  }

  /** Sets the webhook secret only if there is none yet; returns the secret in force. */
  async ensureWebhookSecret(manager: EntityManager, userId: string, candidate: string): Promise<string | null> {
    await manager.update(UserEntity, { id: userId, webhookSecret: IsNull() }, { webhookSecret: candidate });
    return (await this.findById(userId, manager))?.webhookSecret ?? null;
  }

  async setWebhookSecret(manager: EntityManager, userId: string, secret: string): Promise<void> {
    await manager.update(UserEntity, { id: userId }, { webhookSecret: secret });
  }

  setCredits(manager: EntityManager, userId: string, credits: number): Promise<void> {
    return this.userUpdate.run(manager, { id: userId }, { credits });
  }

  /** The owner of an unrevoked token with this hash, in one query. */
  findUserByActiveTokenHash(tokenHash: string): Promise<UserEntity | null> {
    return this.dataSource.manager
      .createQueryBuilder(UserEntity, 'user')
      .innerJoin(AccessTokenEntity, 'token', 'token.user_id = user.id')
      .where('token.token_hash = :tokenHash AND token.revoked_at IS NULL', { tokenHash })
      .getOne();
  }

  insertToken(manager: EntityManager, token: AccessTokenEntity): Promise<AccessTokenEntity> {
    return manager.save(AccessTokenEntity, token);
  }

  /** Revokes one of the user's live tokens; returns its hash, or undefined when there is no such token. */
  async revokeToken(manager: EntityManager, userId: string, tokenId: string, at: Date): Promise<string | undefined> {
    const token = await manager.findOne(AccessTokenEntity, { where: { id: tokenId, userId, revokedAt: IsNull() } });
    if (!token) return undefined;
    await manager.update(AccessTokenEntity, { id: tokenId }, { revokedAt: at });
    return token.tokenHash;
  }

  /** INSERT, not save(): save() runs TypeORM's whole persistence machinery for a row that is only ever added. */
  async appendLedgerEntry(manager: EntityManager, entry: Omit<CreditLedgerEntryEntity, 'id'>): Promise<void> {
    await manager.insert(CreditLedgerEntryEntity, entry);
  }

  ledgerPage(userId: string, page: number, limit: number): Promise<[CreditLedgerEntryEntity[], number]> {
    return this.dataSource.manager.findAndCount(CreditLedgerEntryEntity, {
      where: { userId },
      order: { id: 'DESC' },
      skip: (page - 1) * limit,
      take: limit,
    });
  }
}
