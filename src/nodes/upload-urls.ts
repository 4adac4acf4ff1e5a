import { Injectable } from '@nestjs/common';
import { createHmac } from 'node:crypto';
import { SignedQuery, verifySignedQuery } from '../common/signing/signed-query';
import { SigningKeys } from '../database/signing-keys';

/** How long a signed upload URL accepts its PUT (docs/api-rules.md §6). */
export const UPLOAD_URL_TTL_S = 3600;

/** The route that accepts signed archive uploads: `PUT /uploads/{versionId}?expires=…&signature=…`. */
export const UPLOAD_ROUTE = 'uploads/:versionId';

const KEY_NAME = 'archive-upload';

/** The signed URL's query parameters. */
export type UploadSignature = SignedQuery;

/**
 * Signed URLs for a pending version's archive upload: HMAC-SHA256 over the
 * method, the version and the expiry, with a key every instance shares (see
 * SigningKeys). That the URL is used only once is the version's state: it is
 * accepted only while the version is pending.
 */
@Injectable()
export class UploadUrls {
  constructor(private readonly keys: SigningKeys) {}

  async sign(versionId: string, baseUrl: string, now = Date.now()): Promise<string> {
    const expires = String(Math.floor(now / 1000) + UPLOAD_URL_TTL_S);
    const signature = await this.signatureOf(versionId, expires);
    return `${baseUrl}/uploads/${encodeURIComponent(versionId)}?expires=${expires}&signature=${signature}`;
  }

  /** 403 for a missing, forged or expired signature. */
  async verify(versionId: string, query: UploadSignature, now = Date.now()): Promise<void> {
    await verifySignedQuery('upload URL', query, (expires) => this.signatureOf(versionId, expires), now);
  }

  private async signatureOf(versionId: string, expires: string): Promise<string> {
    const key = await this.keys.get(KEY_NAME);
    return createHmac('sha256', key).update(`PUT\n${versionId}\n${expires}`).digest('base64url');
  }
}
