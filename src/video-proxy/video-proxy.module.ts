import { HttpModule } from '@nestjs/axios';
import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { archivesConfig } from '../archives/archives.config';
import { ArchivesModule } from '../archives/archives.module';
import { UsersModule } from '../users/users.module';
import { CallbackDeliveriesRepository } from './callbacks/callback-deliveries.repository';
import { CallbackDeliveryWorker } from './callbacks/callback-delivery.worker';
import { CallbackOutbox } from './callbacks/callback-outbox';
import { UpstreamCallbackUrl } from './callbacks/upstream-callback-url';
import { UpstreamCallbacksController } from './callbacks/upstream-callbacks.controller';
import { UpstreamCallbacksService } from './callbacks/upstream-callbacks.service';
import { UpstreamNoncesRepository } from './callbacks/upstream-nonces.repository';
import { EarlyUpstreamStatusesRepository } from './callbacks/early-upstream-statuses.repository';
import { IdempotencyKeysRepository } from './idempotency-keys.repository';
import { IdempotencyService } from './idempotency.service';
import { ReservationRecovery } from './reservation-recovery';
import { TaskStatusPoller } from './task-status-poller';
import { ResultDownloadWorker } from './results/result-download.worker';
import { ResultLinks } from './results/result-links';
import { VIDEO_RESULT_STORAGE_PROVIDER } from './results/result-storage';
import { VideoResultsController } from './results/video-results.controller';
import { VideoResultsRepository } from './results/video-results.repository';
import { VideoResultsService } from './results/video-results.service';
import { VideoTasksController } from './video-tasks.controller';
import { VideoTasksService } from './video-tasks.service';
import { upstreamHttpOptions } from './upstream/upstream-http';
import { UpstreamTarget } from './upstream/upstream-target';
import { VideoUpstreamClient } from './upstream/video-upstream.client';
import { videoConfig } from './video.config';
import { VideoProxyController } from './video-proxy.controller';
import { VIDEO_PROXY_METRICS } from './video-proxy-metrics';
import { VideoProxyService } from './video-proxy.service';
import { VideoRequestRules } from './dto/video-request.rules';
import { VideoTasksRepository } from './video-tasks.repository';


@Module({
  imports: [
    HttpModule.registerAsync({ useFactory: upstreamHttpOptions }),
    ConfigModule.forFeature(videoConfig),
    // Kept results: the archives' storage directory and public base URL (see result-storage.ts).
    ConfigModule.forFeature(archivesConfig),
    ArchivesModule,
    UsersModule,
  ],
  controllers: [VideoProxyController, VideoTasksController, VideoResultsController, UpstreamCallbacksController],
  providers: [
    VideoProxyService,
    VideoRequestRules,
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
    EarlyUpstreamStatusesRepository,
    CallbackOutbox,
    CallbackDeliveryWorker,
    ReservationRecovery,
    TaskStatusPoller,
    VideoResultsRepository,
    VideoResultsService,
    ResultLinks,
    ResultDownloadWorker,
    VIDEO_RESULT_STORAGE_PROVIDER,
    ...VIDEO_PROXY_METRICS,
  ],
  exports: [UpstreamTarget],
})
export class VideoProxyModule {}
