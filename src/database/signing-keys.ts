import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import { TransactionRunner } from './transaction-runner';

/** A secret this service signs its own URLs with, by purpose. */
@Entity('signing_keys')
export class SigningKeyEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  name!: string;

  /** 32 random bytes, base64url. */
  @Column({ type: 'varchar', length: 128 })
  secret!: string;

  @Column({ name: 'created_at', type: Date })
  createdAt!: Date;
}

/**
 * Signing keys that live in the database rather than in configuration, so
 * that nothing has to be set up for them and every instance of the service
 * verifies what any other signed. The first instance to need a key creates it;
 * racing instances all read back the one that won (INSERT … ON CONFLICT DO
 * NOTHING, on both databases).
 */
@Injectable()
export class SigningKeys {
  private readonly loaded = new Map<string, Promise<Buffer>>();

  constructor(private readonly tx: TransactionRunner) {}

  get(name: string): Promise<Buffer> {
    let key = this.loaded.get(name);
    if (!key) {
      key = this.load(name);
      // A failed load (database down) is retried by the next caller instead of being remembered.
      key.catch(() => this.loaded.delete(name));
      this.loaded.set(name, key);
    }
    return key;
  }

  /** In a unit of work of its own: on SQLite a bare statement would join whatever transaction is open. */
  private async load(name: string): Promise<Buffer> {
    const { secret } = await this.tx.run(async (manager) => {
      await manager
        .createQueryBuilder()
        .insert()
        .into(SigningKeyEntity)
        .values({ name, secret: randomBytes(32).toString('base64url'), createdAt: new Date() })
        .orIgnore()
        .execute();
      return manager.findOneByOrFail(SigningKeyEntity, { name });
    });
    return Buffer.from(secret, 'base64url');
  }
}
