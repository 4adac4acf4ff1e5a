import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { VideoProxyModule } from '../video-proxy/video-proxy.module';
import { HealthController } from './health.controller';

@Module({
  imports: [TerminusModule.forRoot({ logger: false }), VideoProxyModule],
  controllers: [HealthController],
})
export class HealthModule {}
