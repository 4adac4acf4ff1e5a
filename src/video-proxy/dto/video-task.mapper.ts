import { omitAbsent } from '../../common/replies/omit-absent';
import { VideoCreation, VideoTaskEntity } from '../entities/video-task.entity';
import { StoredCreation } from '../results/video-results.service';
import { VideoCreationDto, VideoTaskDto, VideoTaskReplyDto } from './video-task.dto';

/**
 * The task as GET, the list, cancel and client callbacks show it; `stored`
 * (by creation id) adds where this service keeps each creation's files.
 */
export function toVideoTaskDto(task: VideoTaskEntity, stored?: Map<string, StoredCreation>): VideoTaskDto {
  const reply = task.reply as unknown as VideoTaskReplyDto;
  return omitAbsent({
    ...reply,
    task_id: task.taskId,
    state: task.state,
    credits: task.credits,
    // A success the upstream reported without its creations shows none until they come (VideoTasksService.awaitsCreations).
    creations: task.state === 'success' ? (task.creations ?? []).map((creation) => toVideoCreationDto(creation, stored?.get(creation.id))) : undefined,
    err_code: task.state === 'failed' ? task.errCode : undefined,
    updated_at: task.updatedAt.toISOString(),
  });
}

/** A creation: the upstream's links, and this service's copy of its files once known. */
function toVideoCreationDto(creation: VideoCreation, stored: StoredCreation | undefined): VideoCreationDto {
  // Tasks stored before covers became optional hold an empty cover_url for none.
  return omitAbsent({ ...creation, cover_url: creation.cover_url || undefined, ...stored });
}

/** The task as its create answers: the upstream's reply, with what this service charged. */
export function toCreatedVideoTaskDto(upstreamReply: VideoTaskReplyDto, credits: number): VideoTaskReplyDto {
  return { ...upstreamReply, credits };
}
