import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, IsNull } from 'typeorm';
import { CallbackDeliveryEntity } from '../entities/callback-delivery.entity';

/** A delivery as the worker picks it up: everything but its body and outcome. */
export type DueDelivery = Pick<CallbackDeliveryEntity, 'id' | 'taskId' | 'userId' | 'url' | 'attempts'>;

/** What settling an attempt changes. */
export type DeliveryOutcome = Partial<Pick<CallbackDeliveryEntity, 'deliveredAt' | 'abandonedAt' | 'nextAttemptAt' | 'lastError'>>;

/** Data access for queued client callbacks (the `callback_deliveries` table). */
@Injectable()
export class CallbackDeliveriesRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(manager: EntityManager, delivery: Omit<CallbackDeliveryEntity, 'id'>): Promise<void> {
    await manager.insert(CallbackDeliveryEntity, delivery);
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
   * Counts an attempt and leases the row until `leaseUntil`, only if it is
   * still pending with the attempts the worker read: true when this call
   * took it, false when another worker did first.
   */
  async lease(manager: EntityManager, delivery: DueDelivery, leaseUntil: Date): Promise<boolean> {
    const { affected } = await manager.update(
      CallbackDeliveryEntity,
      { id: delivery.id, attempts: delivery.attempts, deliveredAt: IsNull(), abandonedAt: IsNull() },
      { attempts: delivery.attempts + 1, nextAttemptAt: leaseUntil },
    );
    return affected === 1;
  }

  /** The exact JSON to send, or undefined when the delivery is gone. */
  async bodyOf(manager: EntityManager, id: number): Promise<string | undefined> {
    return (await manager.findOne(CallbackDeliveryEntity, { where: { id }, select: { id: true, body: true } }))?.body;
  }

  async settle(manager: EntityManager, id: number, outcome: DeliveryOutcome): Promise<void> {
    await manager.update(CallbackDeliveryEntity, { id }, outcome);
  }

  /** Deliveries neither delivered nor abandoned (from `ix_callback_deliveries_pending`). */
  countPending(): Promise<number> {
    return this.dataSource.manager.countBy(CallbackDeliveryEntity, { deliveredAt: IsNull(), abandonedAt: IsNull() });
  }
}
