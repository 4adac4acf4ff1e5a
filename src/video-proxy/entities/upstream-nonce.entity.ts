import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Nonces of accepted upstream callbacks, so a replayed callback is refused. */
@Entity('upstream_callback_nonces')
export class UpstreamNonceEntity {
  @PrimaryColumn({ type: 'varchar', length: 128 })
  nonce!: string;

  @Column({ name: 'received_at', type: Date })
  receivedAt!: Date;
}
