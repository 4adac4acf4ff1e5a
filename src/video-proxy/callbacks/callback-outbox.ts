import { Injectable } from '@nestjs/common';
import { DataSource, IsNull, EntityManager } from 'typeorm';
import { TransactionRunner } from '../../database/transaction-runner';
import { CallbackDeliveryEntity } from '../entities/callback-delivery.entity';

export type DueDelivery = Pick<CallbackDeliveryEntity, 'id' | 'taskId' | 'userId' | 'url' | 'attempts'>;

/** The durable queue of client callbacks (the `callback_deliveries` table). */
@Injectable()
export class CallbackOutbox {
  constructor(
    private readonly dataSource: DataSource,
    private readonly tx: TransactionRunner,
  ) {}

  /** Queues one delivery, inside the transaction that changed the task. */
  async enqueue(manager: EntityManager, delivery: { taskId: string; userId: string; url: string; body: string }): Promise<void> {
    const now = new Date();
    await manager.save(
      CallbackDeliveryEntity,
      manager.create(CallbackDeliveryEntity, {
        ...delivery,
        attempts: 0,
        nextAttemptAt: now,
        deliveredAt: null,
        abandonedAt: null,
        lastError: null,
        createdAt: now,
      }),
    );
  }

  /**
   * Deliveries that are due and first in their task's queue (a task's later
   * callbacks wait for the earlier ones), soonest first. Bodies are not read
   * here: they can be large, and most rounds find little to do.
   */
  dueHeads(now: Date, limit: number): Promise<DueDelivery[]> {
    return this.dataSource.manager
      .createQueryBuilder(CallbackDeliveryEntity, 'delivery')
      .select(['delivery.id', 'delivery.taskId', 'delivery.userId', 'delivery.url', 'delivery.attempts'])
      .where('delivery.delivered_at IS NULL AND delivery.abandoned_at IS NULL AND delivery.next_attempt_at <= :now', { now })
      .andWhere(
        `NOT EXISTS (SELECT 1 FROM callback_deliveries earlier WHERE earlier.task_id = delivery.task_id
          AND earlier.id < delivery.id AND earlier.delivered_at IS NULL AND earlier.abandoned_at IS NULL)`,
      )
      .orderBy('delivery.next_attempt_at', 'ASC')
      .addOrderBy('delivery.id', 'ASC')
      .limit(limit)
      .getMany();
  }

  /**
   * Takes a delivery for one attempt: counts the attempt and leases the row,
   * so another worker (or this one after a crash) skips it until the lease
   * ends. Returns the body to send, or undefined when someone else took it.
   */
  claim(delivery: DueDelivery, leaseUntil: Date): Promise<string | undefined> {
    return this.tx.run(async (manager) => {
      const result = await manager.update(
        CallbackDeliveryEntity,
        { id: delivery.id, attempts: delivery.attempts, deliveredAt: IsNull(), abandonedAt: IsNull() },
        { attempts: delivery.attempts + 1, nextAttemptAt: leaseUntil },
      );
      if (result.affected !== 1) return undefined;
      const row = await manager.findOne(CallbackDeliveryEntity, { where: { id: delivery.id }, select: { id: true, body: true } });
      return row?.body;
    });
  }

  async settle(
    id: number,
    change: Partial<Pick<CallbackDeliveryEntity, 'deliveredAt' | 'abandonedAt' | 'nextAttemptAt' | 'lastError'>>,
  ): Promise<void> {
    await this.tx.run((manager) => manager.update(CallbackDeliveryEntity, { id }, change));
  }
}
