import { HttpModule } from '@nestjs/axios';
import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { UsersModule } from '../users/users.module';
import { CallbackDeliveriesRepository } from './callbacks/callback-deliveries.repository';
import { CallbackDeliveryWorker } from './callbacks/callback-delivery.worker';
import { CallbackOutbox } from './callbacks/callback-outbox';
import { UpstreamCallbackUrl } from './callbacks/upstream-callback-url';
import { UpstreamCallbacksController } from './callbacks/upstream-callbacks.controller';
import { UpstreamCallbacksService } from './callbacks/upstream-callbacks.service';
import { UpstreamNoncesRepository } from './callbacks/upstream-nonces.repository';
import { IdempotencyKeysRepository } from './idempotency-keys.repository';
import { IdempotencyService } from './idempotency.service';
import { ReservationRecovery } from './reservation-recovery';
import { VideoTasksController } from './video-tasks.controller';
import { VideoTasksService } from './video-tasks.service';
import { upstreamHttpOptions } from './upstream/upstream-http';
import { UpstreamTarget } from './upstream/upstream-target';
import { VideoUpstreamClient } from './upstream/video-upstream.client';
import { videoConfig } from './video.config';
import { VideoProxyController } from './video-proxy.controller';
import { VideoProxyService } from './video-proxy.service';
import { VideoTasksRepository } from './video-tasks.repository';


@Module({
  imports: [HttpModule.registerAsync({ useFactory: upstreamHttpOptions }), ConfigModule.forFeature(videoConfig), UsersModule],
  controllers: [VideoProxyController, VideoTasksController, UpstreamCallbacksController],
  providers: [
    VideoProxyService,
    VideoTasksService,
    VideoUpstreamClient,
    UpstreamTarget,
    UpstreamCallbackUrl,
    UpstreamCallbacksService,
    IdempotencyService,
    VideoTasksRepository,
    IdempotencyKeysRepository,
    CallbackDeliveriesRepository,
    UpstreamNoncesRepository,
    CallbackOutbox,
    CallbackDeliveryWorker,
    ReservationRecovery,
  ],
  exports: [UpstreamTarget],
})
export class VideoProxyModule {}
