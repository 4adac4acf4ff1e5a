import { Inject, Injectable } from '@nestjs/common';
import { BodyProblem, BodyRules } from '../../common/validation/body-rules';
import { namesNonPublicHost } from '../callbacks/callback-address';
import { videoConfig, VideoConfig } from '../video.config';
import { maxDurationOf } from '../video-models';
import type { CreateVideoTaskDto } from './create-video-task.dto';

/**
 * What a create's body must also satisfy under this service's configuration:
 * the duration its model allows (the configured model when it names none),
 * and a callback address outside loopback and private networks unless
 * CALLBACK_ALLOW_PRIVATE. Reported with the DTO's own problems.
 */
@Injectable()
export class VideoRequestRules implements BodyRules<CreateVideoTaskDto> {
  constructor(@Inject(videoConfig.KEY) private readonly config: VideoConfig) {}

  problems(body: CreateVideoTaskDto, failed: ReadonlySet<string>): BodyProblem[] {
    const problems: BodyProblem[] = [];
    if (body.duration !== undefined && !failed.has('duration') && !failed.has('model')) {
      const model = body.model ?? this.config.VIDEO_DEFAULT_MODEL;
      const max = maxDurationOf(model);
      if (body.duration > max) problems.push({ property: 'duration', message: `duration must be from 1 to ${max} seconds for model ${model}` });
    }
    if (body.callback_url && !failed.has('callback_url') && this.config.CALLBACK_ALLOW_PRIVATE !== 'true' && namesNonPublicHost(body.callback_url)) {
      problems.push({ property: 'callback_url', message: 'callback_url must be a public http(s) address (not loopback or private)' });
    }
    return problems;
  }
}
