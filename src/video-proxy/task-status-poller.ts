import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { PeriodicJob } from '../common/scheduling/periodic-job';
import { videoConfig, VideoConfig } from './video.config';
import { VideoTasksService } from './video-tasks.service';

/**
 * Asks the upstream about running tasks in the background, so that a task
 * learns its end (and its client callback, refund or kept results happen)
 * though nobody polls it and no upstream callback comes: none without
 * PUBLIC_BASE_URL, and a callback can be lost. Every instance checks every
 * VIDEO_STATUS_POLL_MS (0: never); each due task is checked by the one
 * instance that claims it (VideoTasksService.checkDueTasks).
 */
@Injectable()
export class TaskStatusPoller implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(TaskStatusPoller.name);
  private readonly job: PeriodicJob;
  private readonly enabled: boolean;

  constructor(tasks: VideoTasksService, @Inject(videoConfig.KEY) config: VideoConfig) {
    const interval = config.VIDEO_STATUS_POLL_MS;
    this.enabled = interval > 0;
    this.job = new PeriodicJob('background task status check', interval, (stopping) => tasks.checkDueTasks(interval, stopping), this.logger);
  }

  onApplicationBootstrap(): void {
    if (this.enabled) this.job.start();
  }

  /** A check in progress ends after the task at hand; each task's update is one transaction, and its claim only delays the next. */
  beforeApplicationShutdown(): Promise<void> {
    return this.job.stop();
  }
}
