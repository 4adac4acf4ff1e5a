import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A personal access token. Only its SHA-256 hash is stored; the token itself is shown once. */
@Entity('access_tokens')
export class AccessTokenEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'user_id', type: 'varchar', length: 36 })
  userId!: string;

  @Column({ type: 'varchar', length: 128, nullable: true })
  name!: string | null;

  @Column({ name: 'token_hash', type: 'varchar', length: 64, unique: true })
  tokenHash!: string;

  @Column({ name: 'created_at', type: Date })
  createdAt!: Date;

  @Column({ name: 'revoked_at', type: Date, nullable: true })
  revokedAt!: Date | null;
}
