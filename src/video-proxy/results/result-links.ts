import { Inject, Injectable } from '@nestjs/common';
import { createHmac } from 'node:crypto';
import { SignedQuery, verifySignedQuery } from '../../common/signing/signed-query';
import { SigningKeys } from '../../database/signing-keys';
import { videoConfig, VideoConfig } from '../video.config';

const KEY_NAME = 'video-result';

/**
 * Signed links to kept results, `{base}/proxy/video/results/{sha256}?expires=…&signature=…`:
 * HMAC-SHA256 over the file and the expiry with a key every instance shares
 * (SigningKeys, as upload URLs), valid VIDEO_RESULT_LINK_TTL_S.
 */
@Injectable()
export class ResultLinks {
  constructor(
    private readonly keys: SigningKeys,
    @Inject(videoConfig.KEY) private readonly config: VideoConfig,
  ) {}

  async sign(sha256: string, baseUrl: string, now = Date.now()): Promise<string> {
    const expires = String(Math.floor(now / 1000) + this.config.VIDEO_RESULT_LINK_TTL_S);
    return `${baseUrl}/proxy/video/results/${sha256}?expires=${expires}&signature=${await this.signatureOf(sha256, expires)}`;
  }

  /** 403 for a missing, forged or expired signature; else the seconds the link stays valid. */
  verify(sha256: string, query: SignedQuery, now = Date.now()): Promise<number> {
    return verifySignedQuery('result link', query, (expires) => this.signatureOf(sha256, expires), now);
  }

  private async signatureOf(sha256: string, expires: string): Promise<string> {
    const key = await this.keys.get(KEY_NAME);
    return createHmac('sha256', key).update(`GET\n${sha256}\n${expires}`).digest('base64url');
  }
}
