import { ForbiddenException } from '@nestjs/common';
import { timingSafeEqual } from 'node:crypto';

/** A signed URL's query parameters, as the query parser gives them (a repeated one is an array, and refused). */
export interface SignedQuery {
  expires?: unknown;
  signature?: unknown;
}

/**
 * Checks a URL signed as `?expires=<unix seconds>&signature=<expected(expires)>`:
 * 403 for a missing, forged or expired signature (`what` names the URL in the
 * message). Returns the seconds it stays valid.
 */
export async function verifySignedQuery(
  what: string,
  { expires, signature }: SignedQuery,
  expected: (expires: string) => Promise<string>,
  now = Date.now(),
): Promise<number> {
  if (typeof expires !== 'string' || typeof signature !== 'string' || !/^\d{1,12}$/.test(expires)) {
    throw new ForbiddenException(`${what} is not signed (expires and signature are required)`);
  }
  const wanted = Buffer.from(await expected(expires));
  const given = Buffer.from(signature);
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) {
    throw new ForbiddenException(`${what} signature is not valid`);
  }
  if (Number(expires) * 1000 <= now) {
    throw new ForbiddenException(`${what} has expired`);
  }
  return Math.floor((Number(expires) * 1000 - now) / 1000);
}
