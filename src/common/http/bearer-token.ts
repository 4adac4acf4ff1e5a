/** RFC 6750 §2.1: the scheme (in any case), one or more spaces, the token. */
const BEARER_CREDENTIALS = /^Bearer +(\S+)$/i;

/** The token of an `Authorization: Bearer <token>` header; undefined when there is none, or it is malformed. */
export function bearerTokenOf(authorization: string | undefined): string | undefined {
  return BEARER_CREDENTIALS.exec(authorization ?? '')?.[1];
}
