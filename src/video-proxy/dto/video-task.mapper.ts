import { omitAbsent } from '../../common/replies/omit-absent';
import { VideoTaskEntity } from '../entities/video-task.entity';
import { VideoTaskDto, VideoTaskReplyDto } from './video-task.dto';

/** The task as GET, the list and client callbacks show it. */
export function toVideoTaskDto(task: VideoTaskEntity): VideoTaskDto {
  const reply = task.reply as unknown as VideoTaskReplyDto;
  return omitAbsent({
    ...reply,
    task_id: task.taskId,
    state: task.state,
    credits: task.credits,
    creations: task.state === 'success' ? task.creations : undefined,
    err_code: task.state === 'failed' ? task.errCode : undefined,
    updated_at: task.updatedAt.toISOString(),
  });
}
