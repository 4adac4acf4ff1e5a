import { HttpModule } from '@nestjs/axios';
import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { BodySizeLimits } from '../common/http/body-size-limits';
import { UsersModule } from '../users/users.module';
import { IdempotencyService } from './idempotency.service';
import { UpstreamTarget } from './upstream/upstream-target';
import { VideoUpstreamClient } from './upstream/video-upstream.client';
import { videoConfig } from './video.config';
import { VideoProxyController } from './video-proxy.controller';
import { VideoProxyService } from './video-proxy.service';
import { VideoTasksRepository } from './video-tasks.repository';

/** A maximal payload (1 MiB of text, up to 4 MiB as UTF-8) plus seven base64 images. */
export const VIDEO_BODY_LIMIT = '48mb';

@Module({
  imports: [HttpModule, ConfigModule.forFeature(videoConfig), UsersModule],
  controllers: [VideoProxyController],
  providers: [VideoProxyService, VideoUpstreamClient, UpstreamTarget, IdempotencyService, VideoTasksRepository],
  exports: [UpstreamTarget],
})
export class VideoProxyModule {
  constructor(limits: BodySizeLimits) {
    limits.allow('/proxy/video/reference2video', VIDEO_BODY_LIMIT);
  }
}
