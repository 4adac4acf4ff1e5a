import { Module } from '@nestjs/common';
import { UsersModule } from '../users/users.module';
import { PublishersController } from './publishers.controller';
import { PublishersRepository } from './publishers.repository';
import { PublishersService } from './publishers.service';

@Module({
  imports: [UsersModule],
  controllers: [PublishersController],
  providers: [PublishersService, PublishersRepository],
  exports: [PublishersService],
})
export class PublishersModule {}
