import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { UpstreamTaskStatus } from '../upstream/upstream-protocol';

/** A status the upstream reported for a task not stored yet, kept until the task is (see VideoTasksService.receiveUpstreamStatus). */
@Entity('early_upstream_statuses')
export class EarlyUpstreamStatusEntity {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ name: 'task_id', type: 'varchar', length: 128 })
  taskId!: string;

  @Column({ type: 'simple-json' })
  status!: UpstreamTaskStatus;

  @Column({ name: 'received_at', type: Date })
  receivedAt!: Date;
}
