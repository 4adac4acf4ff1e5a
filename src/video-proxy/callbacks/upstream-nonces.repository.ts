import { Injectable } from '@nestjs/common';
import { EntityManager, LessThan } from 'typeorm';
import { UpstreamNonceEntity } from '../entities/upstream-nonce.entity';

/** Data access for the nonces of accepted upstream callbacks (the `upstream_callback_nonces` table). */
@Injectable()
export class UpstreamNoncesRepository {
  isKnown(manager: EntityManager, nonce: string): Promise<boolean> {
    return manager.existsBy(UpstreamNonceEntity, { nonce });
  }

  /** Forgets the nonces received before `cutoff`. */
  async deleteReceivedBefore(manager: EntityManager, cutoff: Date): Promise<void> {
    await manager.delete(UpstreamNonceEntity, { receivedAt: LessThan(cutoff) });
  }

  async delete(manager: EntityManager, nonce: string): Promise<void> {
    await manager.delete(UpstreamNonceEntity, { nonce });
  }

  /** A nonce already stored is a unique violation. */
  async insert(manager: EntityManager, nonce: string, receivedAt: Date): Promise<void> {
    await manager.insert(UpstreamNonceEntity, { nonce, receivedAt });
  }
}
