import { ApiProperty } from '@nestjs/swagger';
import { MOVEMENT_AMPLITUDES, VIDEO_STYLES } from './create-video-task.dto';
import { VIDEO_TASK_STATES, VideoTaskState } from '../entities/video-task.entity';

/** A task as created: its id, state and cost, and the upstream's echo of the request. */
export class VideoTaskReplyDto {
  /** The task's id (the upstream's). */
  task_id!: string;

  @ApiProperty({ enum: VIDEO_TASK_STATES })
  state!: VideoTaskState;

  /** Credits charged for the task. */
  @ApiProperty({ format: 'int32' })
  credits!: number;

  aspect_ratio?: string;
  /** Whether background music was added. */
  bgm?: boolean;
  created_at?: string;
  @ApiProperty({ required: false, format: 'int32' })
  duration?: number;
  images?: string[];
  model?: string;
  @ApiProperty({ enum: MOVEMENT_AMPLITUDES, required: false })
  movement_amplitude?: (typeof MOVEMENT_AMPLITUDES)[number];
  /** Off peak mode status. */
  off_peak?: boolean;
  /** Transparent transmission parameters. */
  payload?: string;
  prompt?: string;
  resolution?: string;
  @ApiProperty({ required: false, format: 'int32' })
  seed?: number;
  @ApiProperty({ enum: VIDEO_STYLES, required: false })
  style?: (typeof VIDEO_STYLES)[number];
  /** Whether a watermark was added. */
  watermark?: boolean;
}
