import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { IdempotencyKeyEntity } from './entities/idempotency-key.entity';

/** A claim named by its id, or by its user and key. */
type ClaimSelector = Pick<IdempotencyKeyEntity, 'id'> | Pick<IdempotencyKeyEntity, 'userId' | 'key'>;

/** Data access for Idempotency-Key claims (the `idempotency_keys` table). */
@Injectable()
export class IdempotencyKeysRepository {
  find(manager: EntityManager, userId: string, key: string): Promise<IdempotencyKeyEntity | null> {
    return manager.findOneBy(IdempotencyKeyEntity, { userId, key });
  }

  /** A new claim, its request in flight. */
  async insertInFlight(manager: EntityManager, claim: Pick<IdempotencyKeyEntity, 'id' | 'userId' | 'key' | 'requestHash' | 'createdAt'>): Promise<void> {
    await manager.insert(IdempotencyKeyEntity, { ...claim, state: 'in_flight', reply: null });
  }

  async delete(manager: EntityManager, id: string): Promise<void> {
    await manager.delete(IdempotencyKeyEntity, { id });
  }

  /** Records how the claim's request ended: the reply to replay (`done`), or the error to answer again (`failed`). */
  async recordOutcome(manager: EntityManager, id: string, state: 'done' | 'failed', reply: object): Promise<void> {
    await manager.update(IdempotencyKeyEntity, { id }, { state, reply });
  }

  /** Deletes the claim if its request is still in flight, freeing the key. */
  async deleteInFlight(manager: EntityManager, claim: ClaimSelector): Promise<void> {
    await manager.delete(IdempotencyKeyEntity, { ...claim, state: 'in_flight' });
  }
}
