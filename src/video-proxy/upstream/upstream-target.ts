import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { SandboxUpstream } from '../sandbox/sandbox-upstream';
import { videoConfig, VideoConfig } from '../video.config';

export type UpstreamMode = 'remote' | 'sandbox';

/**
 * Where video tasks go: the configured upstream, or, when VIDEO_UPSTREAM_URL
 * is unset, the built-in sandbox, started on loopback with the app.
 */
@Injectable()
export class UpstreamTarget implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(UpstreamTarget.name);
  private sandbox?: SandboxUpstream;
  private target?: { url: string; apiKey: string };

  constructor(@Inject(videoConfig.KEY) private readonly config: VideoConfig) {}

  get mode(): UpstreamMode {
    return this.config.VIDEO_UPSTREAM_URL ? 'remote' : 'sandbox';
  }

  async onModuleInit(): Promise<void> {
    if (this.config.VIDEO_UPSTREAM_URL) {
      this.target = { url: this.config.VIDEO_UPSTREAM_URL.replace(/\/+$/, ''), apiKey: this.config.VIDEO_UPSTREAM_API_KEY ?? '' };
      return;
    }
    this.sandbox = new SandboxUpstream();
    this.target = { url: await this.sandbox.start(), apiKey: this.sandbox.apiKey };
    this.logger.warn(`VIDEO_UPSTREAM_URL is not set: video tasks go to the built-in sandbox upstream at ${this.target.url}`);
  }

  async onModuleDestroy(): Promise<void> {
    await this.sandbox?.stop();
  }

  get url(): string {
    return this.current().url;
  }

  get apiKey(): string {
    return this.current().apiKey;
  }

  /**
   * Whether `url` is on the built-in sandbox's own server: its creations'
   * files are fetched without CALLBACK_ALLOW_PRIVATE, since this service
   * started that server on loopback itself (no client chose the address).
   */
  isSandboxUrl(url: string): boolean {
    return this.sandbox !== undefined && URL.canParse(url) && new URL(url).origin === new URL(this.url).origin;
  }

  private current(): { url: string; apiKey: string } {
    if (!this.target) throw new Error('the upstream target is not initialised yet');
    return this.target;
  }
}
