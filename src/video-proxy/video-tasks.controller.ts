import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated, CurrentUser } from '../auth/authenticated.decorator';
import { Principal } from '../auth/principal';
import { RequestOrigin } from '../common/http/http-request';
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
  list(@CurrentUser() caller: Principal, @Query() query: VideoTaskListQueryDto, @RequestOrigin() origin: string): Promise<VideoTaskListDto> {
    return this.tasks.list(caller, query.page, query.limit, origin);
  }

  /** A video task, refreshed from the upstream while it is still running. */
  @Get(':taskId')
  @ApiOperation({
    description:
      'Owner or admin only (others get 404). States move created → queueing → processing → success, failed or ' +
      'canceled, never backwards. On success the reply has `creations: [{id, url, cover_url}]`, each with `store_state` ' +
      'and, once this service keeps its files, `stored_url` and `stored_cover_url` (signed links, fresh on every read); ' +
      'on failure `err_code`, and the task’s credits are refunded (once), as they are when it is canceled.',
  })
  @ApiErrors(404)
  get(@CurrentUser() caller: Principal, @Param('taskId') taskId: string, @RequestOrigin() origin: string): Promise<VideoTaskDto> {
    return this.tasks.get(caller, taskId, origin);
  }

  /** Cancels a task at the upstream and gives its credits back. */
  @Post(':taskId/cancel')
  @HttpCode(200)
  @ApiOperation({
    description:
      'Owner or admin only (others get 404). The upstream cancels the task (it does so only before the task runs), ' +
      'then the task is `canceled` (final), every credit it took goes back (ledger `refund`, once) and the client ' +
      'callback reports `canceled`. Already canceled: the task again, without asking the upstream. 409 when the task ' +
      'already succeeded or failed, or when the upstream refuses (its message); 502 when the upstream fails, 504 when ' +
      'it does not answer in time: nothing changes then.',
  })
  @ApiErrors(404, 409, 502, 504)
  cancel(@CurrentUser() caller: Principal, @Param('taskId') taskId: string, @RequestOrigin() origin: string): Promise<VideoTaskDto> {
    return this.tasks.cancel(caller, taskId, origin);
  }
}
