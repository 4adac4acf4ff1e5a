import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, IsNull } from 'typeorm';
import { CallbackDeliveryEntity } from '../entities/callback-delivery.entity';

/** The durable queue of client callbacks (the `callback_deliveries` table). */
@Injectable()
export class CallbackOutbox {
  constructor(private readonly dataSource: DataSource) {}

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

  /** The oldest pending deliveries (due or not), in queue order. */
  pending(limit: number): Promise<CallbackDeliveryEntity[]> {
    return this.dataSource.manager.find(CallbackDeliveryEntity, {
      where: { deliveredAt: IsNull(), abandonedAt: IsNull() },
      order: { id: 'ASC' },
      take: limit,
    });
  }

  /**
   * Takes a delivery for one attempt: counts the attempt and leases the row,
   * so another worker (or this one after a crash) skips it until the lease
   * ends. False when someone else took it first.
   */
  async claim(delivery: CallbackDeliveryEntity, leaseUntil: Date): Promise<boolean> {
    const result = await this.dataSource.manager.update(
      CallbackDeliveryEntity,
      { id: delivery.id, attempts: delivery.attempts, deliveredAt: IsNull(), abandonedAt: IsNull() },
      { attempts: delivery.attempts + 1, nextAttemptAt: leaseUntil },
    );
    return result.affected === 1;
  }

  async settle(id: number, change: Partial<Pick<CallbackDeliveryEntity, 'deliveredAt' | 'abandonedAt' | 'nextAttemptAt' | 'lastError'>>) {
    await this.dataSource.manager.update(CallbackDeliveryEntity, { id }, change);
  }
}
