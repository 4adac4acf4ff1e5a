import { Module } from '@nestjs/common';
import { AuthModule } from './auth/auth.module';
import { CoreModule } from './common/core.module';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { HealthModule } from './health/health.module';
import { NodesModule } from './nodes/nodes.module';
import { PublishersModule } from './publishers/publishers.module';
import { ReviewsModule } from './reviews/reviews.module';
import { UsersModule } from './users/users.module';
import { VideoProxyModule } from './video-proxy/video-proxy.module';

@Module({
  imports: [
    ConfigModule,
    DatabaseModule,
    CoreModule,
    HealthModule,
    AuthModule,
    UsersModule,
    PublishersModule,
    NodesModule,
    ReviewsModule,
    VideoProxyModule,
  ],
})
export class AppModule {}
