import { Body, Controller, Headers, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated, CurrentUser } from '../auth/authenticated.decorator';
import { Principal } from '../auth/principal';
import { JsonBody } from '../common/http/json-body-limits';
import { ApiErrors } from '../common/openapi/api-errors.decorator';
import { CreateVideoTaskDto } from './dto/create-video-task.dto';
import { VideoTaskReplyDto } from './dto/video-task.dto';
import { VIDEO_BODY_LIMITS } from './video-body-limit';
import { VideoProxyService } from './video-proxy.service';

@ApiTags('video')
@Controller('proxy/video')
export class VideoProxyController {
  constructor(private readonly video: VideoProxyService) {}

  /** Create a reference-to-video task. */
  @Post('reference2video')
  @HttpCode(200)
  @Authenticated()
  @JsonBody(VIDEO_BODY_LIMITS)
  @ApiOperation({
    description:
      'Forwards the validated request to the upstream video model and charges the caller’s credits. The estimated ' +
      'cost (per-second price × duration, 50% off-peak, +10 for `is_rec`) is reserved first (402 when short), then ' +
      'settled to the upstream’s `credits`; any failure before the task exists charges nothing. Upstream failures: ' +
      '400/422 → 400 with its message, 401/403 → 502, 429 → 429 with Retry-After, out of credits → 503, 5xx or a ' +
      'malformed reply → 502, no answer in time → 504. Bodies up to 48 MiB (at most 1,000 JSON values, arrays of at ' +
      'most 100 elements) are accepted on this route; beyond that, 413 as soon as the body crosses a limit.',
  })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description:
      'Up to 255 visible ASCII characters. The same key and body within 24 h returns the first reply without a ' +
      'second task or charge; the same key with another body is 422; while the first request runs, 409.',
  })
  // Swagger UI's "Try it out" starts from this body, not from one made of every field's placeholder (invalid URLs).
  @ApiBody({
    type: CreateVideoTaskDto,
    examples: { prompt: { summary: 'A prompt on a model', value: { model: 'videoq2-turbo', duration: 4, prompt: 'A lighthouse at dusk, waves rolling in' } } },
  })
  @ApiErrors(400, 402, 409, 413, 415, 422, 429, 502, 503, 504)
  create(
    @CurrentUser() caller: Principal,
    @Body() body: CreateVideoTaskDto,
    @Headers('Idempotency-Key') idempotencyKey?: string,
  ): Promise<VideoTaskReplyDto> {
    return this.video.create(caller, body, idempotencyKey);
  }
}
