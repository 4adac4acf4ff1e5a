import { Injectable } from '@nestjs/common';
import { SignedLinks, SignedQuery } from '../common/signing/signed-query';
import { SigningKeys } from '../database/signing-keys';

/** How long a signed upload URL accepts its PUT (docs/api-rules.md §6). */
export const UPLOAD_URL_TTL_S = 3600;

/** The route that accepts signed archive uploads: `PUT /uploads/{versionId}?expires=…&signature=…`. */
export const UPLOAD_ROUTE = 'uploads/:versionId';

/** The signed URL's query parameters. */
export type UploadSignature = SignedQuery;

/**
 * Signed URLs for a pending version's archive upload (SignedLinks, keyed
 * `archive-upload`). That the URL is used only once is the version's state:
 * it is accepted only while the version is pending.
 */
@Injectable()
export class UploadUrls {
  private readonly links: SignedLinks;

  constructor(keys: SigningKeys) {
    this.links = new SignedLinks(() => keys.get('archive-upload'), {
      what: 'upload URL',
      method: 'PUT',
      path: (versionId) => `/${UPLOAD_ROUTE.replace(':versionId', encodeURIComponent(versionId))}`,
    });
  }

  sign(versionId: string, baseUrl: string, now = Date.now()): Promise<string> {
    return this.links.sign(versionId, baseUrl, UPLOAD_URL_TTL_S, now);
  }

  /** 403 for a missing, forged or expired signature. */
  async verify(versionId: string, query: UploadSignature, now = Date.now()): Promise<void> {
    await this.links.verify(versionId, query, now);
  }
}
