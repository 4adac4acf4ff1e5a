import { ApiProperty } from '@nestjs/swagger';
import { ApiInteger } from '../../common/openapi/api-integer.decorator';
import { PageDto, PageQueryDto } from '../../common/pagination/page-query.dto';
import { MOVEMENT_AMPLITUDES, VIDEO_STYLES } from './create-video-task.dto';
import { VIDEO_TASK_STATES, VideoTaskState } from '../entities/video-task.entity';
import { ApiDateTime } from '../../common/openapi/api-date-time.decorator';

/** A task as created: its id, state and cost, and the upstream's echo of the request. */
export class VideoTaskReplyDto {
  /** The task's id (the upstream's). */
  task_id!: string;

  @ApiProperty({ enum: VIDEO_TASK_STATES })
  state!: VideoTaskState;

  /** Credits charged for the task. */
  @ApiInteger({ format: 'int32' })
  credits!: number;
  /** The upstream's error code, once the task failed (its credits are refunded). */
  err_code?: string;

  aspect_ratio?: string;
  /** Whether background music was added. */
  bgm?: boolean;
  @ApiDateTime()
  created_at?: string;
  @ApiInteger({ format: 'int32' })
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
  @ApiInteger({ format: 'int32' })
  seed?: number;
  @ApiProperty({ enum: VIDEO_STYLES, required: false })
  style?: (typeof VIDEO_STYLES)[number];
  /** Whether a watermark was added. */
  watermark?: boolean;
}

export const RESULT_STORE_STATES = ['pending', 'stored', 'failed', 'deleted'] as const;

export class VideoCreationDto {
  id!: string;
  /** The generated video (the upstream's link, valid 24 h after the success). */
  url!: string;
  /** A still image of the video, when the upstream made one. */
  cover_url?: string;
  /**
   * This service's copy of the files: `pending` while they are fetched, `stored`, `failed` (not fetched before the
   * upstream's links expired), `deleted` (after VIDEO_RESULT_RETENTION_DAYS).
   */
  @ApiProperty({ enum: RESULT_STORE_STATES, required: false })
  store_state?: (typeof RESULT_STORE_STATES)[number];
  /** The kept video, once stored: a signed link valid VIDEO_RESULT_LINK_TTL_S (fresh on every read of the task). */
  stored_url?: string;
  /** The kept still image, once stored, signed as `stored_url`. */
  stored_cover_url?: string;
}

/** A task as it stands now: the creation reply plus its progress. */
export class VideoTaskDto extends VideoTaskReplyDto {
  /** The generated videos, once the task succeeded. */
  creations?: VideoCreationDto[];
  /** When the task last changed. */
  @ApiDateTime()
  updated_at!: string;
}

export class VideoTaskListQueryDto extends PageQueryDto {}

export class VideoTaskListDto extends PageDto {
  tasks!: VideoTaskDto[];
}
