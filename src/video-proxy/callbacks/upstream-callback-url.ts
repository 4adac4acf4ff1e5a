import { Inject, Injectable } from '@nestjs/common';
import { appConfig, AppConfig } from '../../config/config.module';
import { UpstreamTarget } from '../upstream/upstream-target';

export const UPSTREAM_CALLBACK_PATH = '/proxy/video/callbacks/upstream';

/**
 * Where the upstream reports task changes: {PUBLIC_BASE_URL}/proxy/video/callbacks/upstream,
 * or, for the built-in sandbox (same machine), this process's own loopback address.
 */
@Injectable()
export class UpstreamCallbackUrl {
  constructor(
    @Inject(appConfig.KEY) private readonly app: AppConfig,
    private readonly target: UpstreamTarget,
  ) {}

  get url(): string | undefined {
    if (this.app.PUBLIC_BASE_URL) return `${this.app.PUBLIC_BASE_URL.replace(/\/+$/, '')}${UPSTREAM_CALLBACK_PATH}`;
    if (this.target.mode === 'sandbox') return `http://127.0.0.1:${this.app.PORT}${UPSTREAM_CALLBACK_PATH}`;
    return undefined;
  }

  /** The path the upstream signs: the handed-out URL's (it may sit behind a path prefix). */
  get signedPath(): string {
    const url = this.url;
    return url ? new URL(url).pathname : UPSTREAM_CALLBACK_PATH;
  }
}
