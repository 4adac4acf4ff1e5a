import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated, CurrentUser } from '../auth/authenticated.decorator';
import { Principal } from '../auth/principal';
import { ApiErrors } from '../common/openapi/api-errors.decorator';
import { VideoTaskDto, VideoTaskListDto, VideoTaskListQueryDto } from './dto/video-task.dto';
import { VideoTasksService } from './video-tasks.service';

@ApiTags('video')
@Authenticated()
@Controller('proxy/video/tasks')
export class VideoTasksController {
  constructor(private readonly tasks: VideoTasksService) {}

  /** The caller's video tasks, newest first. */
  @Get()
  @ApiErrors(400)
  list(@CurrentUser() caller: Principal, @Query() query: VideoTaskListQueryDto): Promise<VideoTaskListDto> {
    return this.tasks.list(caller, query.page, query.limit);
  }

  /** A video task, refreshed from the upstream while it is still running. */
  @Get(':taskId')
  @ApiOperation({
    description:
      'Owner or admin only (others get 404). States move created → queueing → processing → success or failed, ' +
      'never backwards. On success the reply has `creations: [{id, url, cover_url}]`; on failure `err_code`, and ' +
      'the task’s credits are refunded (once).',
  })
  @ApiErrors(404)
  get(@CurrentUser() caller: Principal, @Param('taskId') taskId: string): Promise<VideoTaskDto> {
    return this.tasks.get(caller, taskId);
  }
}
