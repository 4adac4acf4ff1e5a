import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, FindOneOptions, IsNull, LessThan } from 'typeorm';
import { PreparedFindOne, PreparedInsert, PreparedUpdate, queryRows } from '../database/prepared-statements';
import { AccessTokenEntity } from './entities/access-token.entity';
import { CreditLedgerEntryEntity } from './entities/credit-ledger-entry.entity';
import { CreditReservationEntity } from './entities/credit-reservation.entity';
import { UserEntity } from './entities/user.entity';

/** SQLite. Parameters: amount, user id, amount (a `?` cannot be referred to twice). */
const TAKE_CREDITS_ON_SQLITE = 'UPDATE "users" SET "credits" = "credits" - ? WHERE "id" = ? AND "credits" >= ? RETURNING "credits"';

/**
 * PostgreSQL: that UPDATE, the reservation's row and its ledger entry in one
 * statement. Parameters: amount, user id, created at, reservation id, idempotency key.
 */
const RESERVE_ON_POSTGRES = `WITH taken AS (
  UPDATE "users" SET "credits" = "credits" - $1 WHERE "id" = $2 AND "credits" >= $1 RETURNING "credits"
), held AS (
  INSERT INTO "credit_reservations" ("id", "user_id", "amount", "idempotency_key", "created_at")
  SELECT $4, $2, $1, $5::varchar, $3::timestamptz FROM taken
)
INSERT INTO "credit_ledger" ("user_id", "kind", "amount", "balance_after", "task_id", "created_at")
SELECT $2, 'reserve', -$1, "credits", NULL, $3::timestamptz FROM taken
RETURNING "balance_after"`;

/** Closes a reservation; only the caller that gets its row back may move its credits. Parameter: reservation id. */
const CLOSE_RESERVATION = (parameter: string) =>
  `DELETE FROM "credit_reservations" WHERE "id" = ${parameter} RETURNING "id", "user_id", "amount", "idempotency_key"`;
const CLOSE_RESERVATION_ON = { postgres: CLOSE_RESERVATION('$1'), sqlite: CLOSE_RESERVATION('?') };

type ReservationRow = { id: string; user_id: string; amount: number; idempotency_key: string | null };

/** An open reservation: what was taken from whom, and for which Idempotency-Key (if any). */
export type OpenReservation = Omit<CreditReservationEntity, 'createdAt'>;

/** Data access for the user aggregate: the user, its tokens and its credit ledger. */
@Injectable()
export class UsersRepository {
  private readonly userById = new PreparedFindOne(UserEntity, [['id']]);
  private readonly userUpdate = new PreparedUpdate(UserEntity, ['id']);
  private readonly ledgerInsert = new PreparedInsert(CreditLedgerEntryEntity);
  private readonly reservationInsert = new PreparedInsert(CreditReservationEntity);

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
   * SQLite: takes `amount` credits in one conditional UPDATE, only if the
   * balance covers it, so concurrent reservations can never drive a balance
   * negative. Returns the balance after, or null when it did not cover the
   * amount.
   */
  async takeCreditsIfAvailable(manager: EntityManager, userId: string, amount: number): Promise<number | null> {
    const rows = await queryRows<{ credits: number }>(manager, TAKE_CREDITS_ON_SQLITE, [amount, userId, amount]);
    return rows.length === 1 ? rows[0].credits : null;
  }

  /**
   * PostgreSQL: the same conditional UPDATE and its 'reserve' ledger entry as
   * one statement, outside any transaction, so the user's row stays locked
   * only until that statement commits (see CreditsService.reserve). Returns
   * the balance after, or null when it did not cover the amount.
   */
  async reserveInOneStatement(reservation: CreditReservationEntity): Promise<number | null> {
    const { amount, userId, createdAt, id, idempotencyKey } = reservation;
    const rows = await queryRows<{ balance_after: number }>(this.dataSource.manager, RESERVE_ON_POSTGRES, [
      amount,
      userId,
      createdAt,
      id,
      idempotencyKey,
    ]);
    return rows.length === 1 ? rows[0].balance_after : null;
  }

  /** SQLite: records an open reservation, in the transaction that took its credits. */
  insertReservation(manager: EntityManager, reservation: CreditReservationEntity): Promise<void> {
    return this.reservationInsert.run(manager, reservation);
  }

  /**
   * Deletes an open reservation and returns it, or null when it is already
   * closed (settled, released, or released by the recovery sweep). The DELETE
   * is the claim: on PostgreSQL a racing second DELETE waits for the first to
   * commit and then finds no row; on SQLite writers are serialised.
   */
  async closeReservation(manager: EntityManager, id: string): Promise<OpenReservation | null> {
    const sql = this.dataSource.driver.options.type === 'postgres' ? CLOSE_RESERVATION_ON.postgres : CLOSE_RESERVATION_ON.sqlite;
    const [row] = await queryRows<ReservationRow>(manager, sql, [id]);
    return row ? { id: row.id, userId: row.user_id, amount: row.amount, idempotencyKey: row.idempotency_key } : null;
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

  /** A prepared INSERT: building TypeORM's insert per entry cost more than running it. */
  appendLedgerEntry(manager: EntityManager, entry: Omit<CreditLedgerEntryEntity, 'id'>): Promise<void> {
    return this.ledgerInsert.run(manager, entry);
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
