import { createHmac, timingSafeEqual } from 'node:crypto';

/** The headers the upstream signs, in signing order. */
export const SIGNED_HEADERS = ['Date', 'x-request-nonce'] as const;
export const MAX_CLOCK_SKEW_MS = 5 * 60 * 1000;

export interface SignedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  accessKey: string;
  /** Header values by lower-cased name. */
  headers: Record<string, string | undefined>;
}

/**
 * The upstream's signing string: METHOD, path, canonical query (parameters
 * sorted by name, k=v joined by &), access key, the Date value, then one
 * `Name:value` line per signed header in the listed order; each line ends in \n.
 */
export function signingString(request: SignedRequest, signedHeaders: readonly string[]): string {
  const query = Object.keys(request.query)
    .sort()
    .map((name) => `${name}=${request.query[name]}`)
    .join('&');
  const headerLines = signedHeaders.map((name) => `${name}:${request.headers[name.toLowerCase()] ?? ''}\n`).join('');
  return `${request.method.toUpperCase()}\n${request.path}\n${query}\n${request.accessKey}\n${request.headers.date ?? ''}\n${headerLines}`;
}

/** base64(HMAC-SHA256(key, signing string)). */
export function signature(key: string, request: SignedRequest, signedHeaders: readonly string[]): string {
  return createHmac('sha256', key).update(signingString(request, signedHeaders)).digest('base64');
}

/** Headers an upstream callback carries, for `request` signed with `key` (used by the sandbox). */
export function signHeaders(key: string, accessKey: string, request: Omit<SignedRequest, 'accessKey' | 'headers'>, nonce: string, date = new Date()) {
  const headers = { date: date.toUTCString(), 'x-request-nonce': nonce };
  return {
    Date: headers.date,
    'x-request-nonce': nonce,
    'X-HMAC-ALGORITHM': 'hmac-sha256',
    'X-HMAC-ACCESS-KEY': accessKey,
    'X-HMAC-SIGNED-HEADERS': SIGNED_HEADERS.join(';'),
    'X-HMAC-SIGNATURE': signature(key, { ...request, accessKey, headers }, SIGNED_HEADERS),
  };
}

export type VerificationFailure = 'unsigned' | 'unsupported algorithm' | 'bad signature' | 'stale' ;

/**
 * Checks an upstream callback's signature and freshness. Returns why it is
 * refused, or undefined when it is good. (Replay is checked by the caller,
 * which owns the nonce store.)
 */
export function verifyUpstreamSignature(
  key: string,
  method: string,
  path: string,
  query: Record<string, string>,
  headers: Record<string, string | undefined>,
  now = Date.now(),
): VerificationFailure | undefined {
  const provided = headers['x-hmac-signature'];
  const signedHeaderList = headers['x-hmac-signed-headers'];
  const accessKey = headers['x-hmac-access-key'];
  if (!provided || !signedHeaderList || !accessKey || !headers.date || !headers['x-request-nonce']) {
    return 'unsigned';
  }
  if ((headers['x-hmac-algorithm'] ?? '').toLowerCase() !== 'hmac-sha256') {
    return 'unsupported algorithm';
  }
  const signedHeaders = signedHeaderList.split(';').map((name) => name.trim()).filter(Boolean);
  // The nonce and date must be covered, or a replay could swap them.
  const covered = new Set(signedHeaders.map((name) => name.toLowerCase()));
  if (!covered.has('date') || !covered.has('x-request-nonce')) {
    return 'unsigned';
  }
  const expected = Buffer.from(signature(key, { method, path, query, accessKey, headers }, signedHeaders));
  const actual = Buffer.from(provided);
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) {
    return 'bad signature';
  }
  const sentAt = Date.parse(headers.date);
  if (Number.isNaN(sentAt) || Math.abs(now - sentAt) > MAX_CLOCK_SKEW_MS) {
    return 'stale';
  }
  return undefined;
}
