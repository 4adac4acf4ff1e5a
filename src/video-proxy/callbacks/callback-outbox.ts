import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { TransactionRunner } from '../../database/transaction-runner';
import { CallbackDeliveriesRepository, DeliveryOutcome, DueDelivery } from './callback-deliveries.repository';

/** The durable queue of client callbacks: queued with a task's change, taken and settled by the worker. */
@Injectable()
export class CallbackOutbox {
  constructor(
    private readonly deliveries: CallbackDeliveriesRepository,
    private readonly tx: TransactionRunner,
  ) {}

  /** Queues one delivery, inside the transaction that changed the task. */
  enqueue(manager: EntityManager, delivery: { taskId: string; userId: string; url: string; body: string }): Promise<void> {
    const now = new Date();
    return this.deliveries.insert(manager, {
      ...delivery,
      attempts: 0,
      nextAttemptAt: now,
      deliveredAt: null,
      abandonedAt: null,
      lastError: null,
      createdAt: now,
    });
  }

  /** The deliveries ready for an attempt, soonest first (see CallbackDeliveriesRepository.dueHeads). */
  dueHeads(now: Date, limit: number): Promise<DueDelivery[]> {
    return this.deliveries.dueHeads(now, limit);
  }

  /**
   * Takes a delivery for one attempt: counts the attempt and leases the row,
   * so another worker (or this one after a crash) skips it until the lease
   * ends. Returns the body to send, or undefined when someone else took it.
   */
  claim(delivery: DueDelivery, leaseUntil: Date): Promise<string | undefined> {
    return this.tx.run(async (manager) =>
      (await this.deliveries.lease(manager, delivery, leaseUntil)) ? this.deliveries.bodyOf(manager, delivery.id) : undefined,
    );
  }

  settle(id: number, outcome: DeliveryOutcome): Promise<void> {
    return this.tx.run((manager) => this.deliveries.settle(manager, id, outcome));
  }

  /** How many deliveries are neither delivered nor abandoned yet, across all instances (for the metrics). */
  pendingCount(): Promise<number> {
    return this.deliveries.countPending();
  }
}
