import { Module } from '@nestjs/common';
import { PublishersModule } from '../publishers/publishers.module';
import { NodesController } from './nodes.controller';
import { NodesRepository } from './nodes.repository';
import { NodesService } from './nodes.service';
import { PublisherNodesController } from './publisher-nodes.controller';

@Module({
  imports: [PublishersModule],
  controllers: [NodesController, PublisherNodesController],
  providers: [NodesService, NodesRepository],
  exports: [NodesService],
})
export class NodesModule {}
