import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { VideoTaskEntity } from './entities/video-task.entity';

@Injectable()
export class VideoTasksRepository {
  async insert(manager: EntityManager, task: VideoTaskEntity): Promise<void> {
    await manager.save(VideoTaskEntity, manager.create(VideoTaskEntity, task));
  }
}
