import { BadRequestException, HttpException, HttpStatus, Injectable, Logger, NotFoundException } from '@nestjs/common';
import { InjectMetric } from '@willsoto/nestjs-prometheus';
import { randomUUID } from 'node:crypto';
import { Counter } from 'prom-client';
import { EntityManager } from 'typeorm';
import { TransactionRunner } from '../database/transaction-runner';
import { BalanceDto } from './dto/user.dto';
import { toBalanceDto } from './dto/user.mapper';
import { LedgerKind } from './entities/credit-ledger-entry.entity';
import { OpenReservation, OpenReservations, UsersRepository } from './users.repository';

/**
 * Credits taken by `reserve`: `id` is null when no reservation was opened
 * (a free request without an Idempotency-Key); `ledgerEntryId` is null when
 * no ledger entry was written (nothing was taken).
 */
export interface Reservation {
  id: string | null;
  userId: string;
  amount: number;
  ledgerEntryId: number | null;
}

/**
 * The most credits a grant may take a balance to: well inside PostgreSQL's
 * integer column (2^31 - 1), so the credits a user's running tasks hold can
 * still come back to it by releases and refunds.
 */
export const MAX_BALANCE = 1_000_000_000;

/** How many interrupted reservations one sweep releases at most; the next sweep takes the rest. */
const SWEEP_BATCH = 100;

/** The counters of credits moved (declared in credit-metrics.ts). */
export const CREDITS_SETTLED = 'registry_credits_settled_total';
export const CREDITS_RELEASED = 'registry_credits_released_total';
export const CREDITS_REFUNDED = 'registry_credits_refunded_total';

/**
 * Every movement of a user's credits, each recorded in the ledger in the
 * same transaction, so the newest entry's balance_after is always the balance.
 * Settlements, releases and refunds are also counted for the metrics when
 * written (a transaction that then rolls back has counted its movement).
 */
@Injectable()
export class CreditsService {
  private readonly logger = new Logger(CreditsService.name);

  constructor(
    private readonly users: UsersRepository,
    private readonly tx: TransactionRunner,
    @InjectMetric(CREDITS_SETTLED) private readonly settledCredits: Counter,
    @InjectMetric(CREDITS_RELEASED) private readonly releasedCredits: Counter,
    @InjectMetric(CREDITS_REFUNDED) private readonly refundedCredits: Counter,
  ) {}

  /**
   * An operator's grant (or, negative, correction): never below 0, and 400
   * past MAX_BALANCE; the ledger records what was applied.
   */
  async grant(userId: string, amount: number): Promise<BalanceDto> {
    return this.tx.run(async (manager) => {
      await this.move(manager, userId, 'grant', amount, null, MAX_BALANCE);
      const user = await this.users.findById(userId, manager);
      return toBalanceDto(userId, user?.credits ?? 0);
    });
  }

  /** Reserves an estimated cost before work starts, in a transaction of its own (see reserveWithin). */
  reserve(userId: string, amount: number): Promise<Reservation> {
    return this.tx.run((manager) => this.reserveWithin(manager, userId, amount, null));
  }

  /**
   * Reserves an estimated cost before work starts, in the caller's
   * transaction: 402 when the balance is short.
   *
   * The conditional update that takes the credits, the reservation's open
   * row, and its ledger entry. On PostgreSQL the user's row stays locked from
   * that update until the commit, so one user's concurrent creates take their
   * reservations one at a time.
   *
   * The open row is what lets `releaseInterrupted`, on any instance, give
   * the credits back if this process dies before settling or releasing it.
   */
  async reserveWithin(manager: EntityManager, userId: string, amount: number, idempotencyKey: string | null): Promise<Reservation> {
    // A free create takes nothing and records nothing; with an Idempotency-Key it still opens a row (of 0), through
    // which the sweep frees the key if this process dies (docs/api-rules.md §8).
    if (amount === 0 && idempotencyKey === null) return { id: null, userId, amount, ledgerEntryId: null };
    const after = amount === 0 ? 0 : await this.users.takeCreditsIfAvailable(manager, userId, amount);
    if (after === null) {
      const balance = (await this.users.findById(userId, manager))?.credits ?? 0;
      throw new HttpException(`not enough credits: this request needs ${amount}, the balance is ${balance}`, HttpStatus.PAYMENT_REQUIRED);
    }
    const opened = { id: randomUUID(), userId, amount, idempotencyKey, createdAt: new Date() };
    await this.users.insertReservation(manager, opened);
    const ledgerEntryId = amount > 0 ? await this.record(manager, userId, 'reserve', -amount, null, after) : null;
    return { id: opened.id, userId, amount, ledgerEntryId };
  }

  /**
   * Gives back a reservation whose work never started (a no-op if the
   * recovery sweep already did); `alsoDo` runs in the same transaction (the
   * video proxy ends the request's Idempotency-Key claim there).
   */
  async release(reservation: Reservation, alsoDo?: (manager: EntityManager) => Promise<void>): Promise<void> {
    const { id } = reservation;
    if (id === null && alsoDo === undefined) return;
    await this.tx.run(async (manager) => {
      if (id !== null) await this.closeAndRelease(manager, id);
      await alsoDo?.(manager);
    });
  }

  /**
   * Releases reservations opened before `cutoff` and still open: their
   * request can no longer be running, so its process died (docs/api-rules.md §8).
   * Each is released in a transaction of its own that first deletes its row,
   * so with several instances sweeping at once each is released exactly once;
   * `alsoDo` runs in that transaction (the video proxy frees the request's
   * Idempotency-Key there). Returns what was released.
   */
  async releaseInterrupted(
    cutoff: Date,
    alsoDo: (manager: EntityManager, released: OpenReservation) => Promise<void>,
  ): Promise<OpenReservation[]> {
    const released: OpenReservation[] = [];
    for (const id of await this.users.reservationsOpenedBefore(cutoff, SWEEP_BATCH)) {
      const reservation = await this.tx.run(async (manager) => {
        const closed = await this.closeAndRelease(manager, id);
        if (closed) await alsoDo(manager, closed);
        return closed;
      });
      if (reservation) released.push(reservation);
    }
    return released;
  }

  /**
   * Settles a reservation to the actual cost, inside the caller's transaction.
   * A cost above the reservation is taken only as far as the balance goes: the
   * balance never turns negative. Throws if the reservation was already
   * released (by the recovery sweep, after this request outlived its deadline):
   * its credits are back, so there is nothing left to settle against.
   * The reservation's ledger entry is linked to the task, so that every
   * credit a task took shows its `task_id` (usually the only entry: an
   * estimate that was right moves nothing more).
   */
  async settle(manager: EntityManager, reservation: Reservation, actual: number, taskId: string): Promise<number> {
    const { userId, amount: reserved } = reservation;
    if (reservation.id !== null && !(await this.users.closeReservation(manager, reservation.id))) {
      throw new Error(`reservation ${reservation.id} was already released`);
    }
    if (reservation.ledgerEntryId !== null) await this.users.linkLedgerEntryToTask(manager, reservation.ledgerEntryId, taskId);
    // The estimate was right (the usual case): nothing moves, so the user's row is neither read nor
    // locked. On PostgreSQL that lock would serialise all of one user's concurrent creates once more.
    const charged = actual === reserved ? actual : reserved - (await this.move(manager, userId, 'settle', reserved - actual, taskId));
    if (charged < actual) {
      this.logger.warn({ userId, taskId, reserved, actual }, 'upstream charged more than the balance could cover');
    }
    this.settledCredits.inc(charged);
    return charged;
  }

  /** Gives a failed task's credits back, inside the caller's transaction (which guards "exactly once"). */
  async refund(manager: EntityManager, userId: string, amount: number, taskId: string): Promise<void> {
    await this.move(manager, userId, 'refund', amount, taskId);
    this.refundedCredits.inc(amount);
  }

  /** What open reservations hold right now (the metrics read it on scrape). */
  openReservations(): Promise<OpenReservations> {
    return this.users.openReservations();
  }

  /** Deletes the reservation's row and, if this call is the one that deleted it, gives its credits back. */
  private async closeAndRelease(manager: EntityManager, id: string): Promise<OpenReservation | null> {
    const closed = await this.users.closeReservation(manager, id);
    if (closed) {
      await this.move(manager, closed.userId, 'release', closed.amount, null);
      this.releasedCredits.inc(closed.amount);
    }
    return closed;
  }

  /**
   * Adds `amount` (negative: takes it, at most down to 0) under a row lock and
   * records it; returns the amount actually moved.
   */
  private async move(
    manager: EntityManager,
    userId: string,
    kind: LedgerKind,
    amount: number,
    taskId: string | null,
    ceiling = Number.POSITIVE_INFINITY,
  ): Promise<number> {
    const user = await this.users.findById(userId, manager, this.tx.lockForUpdate());
    if (!user) {
      throw new NotFoundException(`user '${userId}' not found`);
    }
    const balance = Math.max(0, user.credits + amount);
    if (amount > 0 && balance > ceiling) {
      throw new BadRequestException(`amount ${amount} would take the balance from ${user.credits} to ${balance}, over the most a balance holds (${ceiling})`);
    }
    const moved = balance - user.credits;
    if (moved !== 0) {
      await this.users.setCredits(manager, userId, balance);
      await this.record(manager, userId, kind, moved, taskId, balance);
    }
    return moved;
  }

  /** Appends a ledger entry; returns its id. */
  private record(
    manager: EntityManager,
    userId: string,
    kind: LedgerKind,
    amount: number,
    taskId: string | null,
    balanceAfter: number,
  ): Promise<number> {
    return this.users.appendLedgerEntry(manager, { userId, kind, amount, balanceAfter, taskId, createdAt: new Date() });
  }
}
