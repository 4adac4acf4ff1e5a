import { Inject, Injectable } from '@nestjs/common';
import { SignedLinks, SignedQuery } from '../../common/signing/signed-query';
import { SigningKeys } from '../../database/signing-keys';
import { videoConfig, VideoConfig } from '../video.config';

/** Where kept results are served (VideoResultsController's route): the signed links point there. */
export const RESULTS_ROUTE = 'proxy/video/results';

/**
 * Signed links to kept results, `{base}/proxy/video/results/{sha256}?expires=…&signature=…`
 * (SignedLinks, keyed `video-result`), valid VIDEO_RESULT_LINK_TTL_S.
 */
@Injectable()
export class ResultLinks {
  private readonly links: SignedLinks;

  constructor(
    keys: SigningKeys,
    @Inject(videoConfig.KEY) private readonly config: VideoConfig,
  ) {
    this.links = new SignedLinks(() => keys.get('video-result'), { what: 'result link', method: 'GET', path: (sha256) => `/${RESULTS_ROUTE}/${sha256}` });
  }

  sign(sha256: string, baseUrl: string, now = Date.now()): Promise<string> {
    return this.links.sign(sha256, baseUrl, this.config.VIDEO_RESULT_LINK_TTL_S, now);
  }

  /** 403 for a missing, forged or expired signature; else the seconds the link stays valid. */
  verify(sha256: string, query: SignedQuery, now = Date.now()): Promise<number> {
    return this.links.verify(sha256, query, now);
  }
}
