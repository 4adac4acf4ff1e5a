import { VideoTaskEntity } from '../entities/video-task.entity';
import { VideoTaskDto, VideoTaskReplyDto } from './video-task.dto';

/** The task as GET, the list and client callbacks show it. */
export function toVideoTaskDto(task: VideoTaskEntity): VideoTaskDto {
  const reply = task.reply as unknown as VideoTaskReplyDto;
  return {
    ...reply,
    task_id: task.taskId,
    state: task.state,
    credits: task.credits,
    ...(task.state === 'success' && task.creations ? { creations: task.creations } : {}),
    ...(task.state === 'failed' && task.errCode ? { err_code: task.errCode } : {}),
    updated_at: task.updatedAt.toISOString(),
  };
}
