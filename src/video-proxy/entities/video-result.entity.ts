import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The longest creation id a job keeps files for (the upstream's are short; see VideoResultsService.enqueue). */
export const MAX_CREATION_ID_LENGTH = 128;

/** A creation's file to keep: its video, or the still image of it. */
export type VideoResultKind = 'video' | 'cover';

/** pending → stored → deleted (retention), or pending → failed (the upstream's links expired first, or it can never be kept). */
export type VideoResultState = 'pending' | 'stored' | 'failed' | 'deleted';

/**
 * One file of a successful task to fetch from the upstream and keep: written
 * in the transaction that records the success, taken by any instance's
 * ResultDownloadWorker (leased through `next_attempt_at`), and finished once.
 */
@Entity('video_results')
export class VideoResultEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'task_id', type: 'varchar', length: 128 })
  taskId!: string;

  /** The task's owner, who may read the file with a bearer token alone. */
  @Column({ name: 'user_id', type: 'varchar', length: 36 })
  userId!: string;

  @Column({ name: 'creation_id', type: 'varchar', length: MAX_CREATION_ID_LENGTH })
  creationId!: string;

  @Column({ type: 'varchar', length: 8 })
  kind!: VideoResultKind;

  /** The upstream's link, valid 24 h after the success (pre-signed CDN links can run past 2 KB: no length). */
  @Column({ name: 'source_url', type: 'text' })
  sourceUrl!: string;

  @Column({ type: 'varchar', length: 8 })
  state!: VideoResultState;

  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  /** When the next attempt may start; while an attempt runs, the end of its lease. */
  @Column({ name: 'next_attempt_at', type: Date })
  nextAttemptAt!: Date;

  /** After this the upstream's link is dead: a download not done by then has failed. */
  @Column({ name: 'links_expire_at', type: Date })
  linksExpireAt!: Date;

  /** The stored file's name (its sha256) once stored. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  sha256!: string | null;

  /** Sniffed from the stored bytes. */
  @Column({ name: 'content_type', type: 'varchar', length: 64, nullable: true })
  contentType!: string | null;

  @Column({ name: 'stored_at', type: Date, nullable: true })
  storedAt!: Date | null;

  @Column({ name: 'last_error', type: 'varchar', length: 512, nullable: true })
  lastError!: string | null;

  @Column({ name: 'created_at', type: Date })
  createdAt!: Date;
}
