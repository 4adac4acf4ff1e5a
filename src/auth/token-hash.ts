import { createHash, randomBytes } from 'node:crypto';

export const TOKEN_PREFIX = 'nrt_';

/** A new opaque token: 32 random bytes, base64url, with a prefix that makes leaked tokens easy to scan for. */
export function generateToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/** A secret for signing a user's callbacks (HMAC-SHA256 key). */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/** Tokens carry 256 bits of entropy, so a fast hash is enough: there is nothing to brute-force. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
