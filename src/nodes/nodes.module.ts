import { Module } from '@nestjs/common';
import { RateLimitModule } from '../common/http/rate-limit.module';
import { ArchivesModule } from '../archives/archives.module';
import { BulkVersionsController } from './bulk-versions.controller';
import { PublishersModule } from '../publishers/publishers.module';
import { UsersModule } from '../users/users.module';
import { ComfyNodesController } from './comfy-nodes/comfy-nodes.controller';
import { ComfyNodesRepository } from './comfy-nodes/comfy-nodes.repository';
import { ComfyNodesService } from './comfy-nodes/comfy-nodes.service';
import { ArchiveReview } from './review/archive-review';
import { VersionReviewsRepository } from './review/version-reviews.repository';
import { VersionReviewService } from './review/version-review.service';
import { VersionReviewController } from './review/version-review.controller';
import { NodeModerationController } from './node-moderation.controller';
import { NodeModerationService } from './node-moderation.service';
import { DownloadCounter } from './download-counter';
import { NodeArchiveAccess } from './node-archive-access';
import { NodePublishingService } from './node-publishing.service';
import { NodeCatalogService } from './node-catalog.service';
import { NodesController } from './nodes.controller';
import { NODES_METRICS } from './nodes-metrics';
import { NodesRepository } from './nodes.repository';
import { catalogSearchProvider } from './search/catalog-search';
import { NodesService } from './nodes.service';
import { PublisherNodesController } from './publisher-nodes.controller';
import { UploadUrls } from './upload-urls';
import { UploadsController } from './uploads.controller';

@Module({
  imports: [PublishersModule, UsersModule, ArchivesModule, RateLimitModule],
  controllers: [
    NodesController,
    PublisherNodesController,
    UploadsController,
    ComfyNodesController,
    BulkVersionsController,
    VersionReviewController,
    NodeModerationController,
  ],
  providers: [
    NodesService,
    NodeCatalogService,
    NodesRepository,
    catalogSearchProvider,
    DownloadCounter,
    NodePublishingService,
    UploadUrls,
    ComfyNodesService,
    ComfyNodesRepository,
    ArchiveReview,
    VersionReviewsRepository,
    VersionReviewService,
    NodeModerationService,
    NodeArchiveAccess,
    ...NODES_METRICS,
  ],
  exports: [NodesService],
})
export class NodesModule {}
