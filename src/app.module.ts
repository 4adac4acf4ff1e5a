import { DynamicModule, Module, Type } from '@nestjs/common';
import { ArchivesModule } from './archives/archives.module';
import { AuthModule } from './auth/auth.module';
import { CoreModule } from './common/core.module';
import { ConfigModule } from './config/config.module';
import { SchemaExtension } from './database/database-options';
import { DatabaseModule } from './database/database.module';
import { HealthModule } from './health/health.module';
import { MetricsModule } from './metrics/metrics.module';
import { NodesModule } from './nodes/nodes.module';
import { PublishersModule } from './publishers/publishers.module';
import { ReviewsModule } from './reviews/reviews.module';
import { UsersModule } from './users/users.module';
import { VideoProxyModule } from './video-proxy/video-proxy.module';

/**
 * A feature mounted beside the built-in ones without editing them: its Nest
 * module plus the entities and migrations it owns (see docs/extending.md).
 */
export interface AppExtension extends SchemaExtension {
  module: Type<unknown>;
}

@Module({})
export class AppModule {
  /** `metrics`: METRICS_TOKEN is set, so GET /metrics exists (MetricsModule). */
  static forRoot(extensions: AppExtension[], { metrics }: { metrics: boolean }): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule,
        DatabaseModule.forRoot(extensions),
        CoreModule,
        HealthModule,
        AuthModule,
        UsersModule,
        PublishersModule,
        NodesModule,
        ReviewsModule,
        ArchivesModule,
        VideoProxyModule,
        MetricsModule.forRoot({ enabled: metrics }),
        ...extensions.map((extension) => extension.module),
      ],
    };
  }
}
