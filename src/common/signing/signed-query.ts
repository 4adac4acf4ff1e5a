import { ForbiddenException } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Allow } from 'class-validator';
import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * A signed URL's query: these two parameters and no other (another is 400, as
 * on every route). Their values are left as the query parser gives them (a
 * repeated one is an array) for verifySignedQuery, which refuses anything
 * but the signature it made with 403.
 */
export class SignedQuery {
  @ApiPropertyOptional({ description: 'Part of the signed URL (Unix seconds).', type: String })
  @Allow()
  expires?: unknown;

  @ApiPropertyOptional({ description: 'Part of the signed URL.', type: String })
  @Allow()
  signature?: unknown;
}

/**
 * Checks a URL signed as `?expires=<unix seconds>&signature=<expected(expires)>`:
 * 403 for a missing, forged or expired signature (`what` names the URL in the
 * message). Returns the seconds it stays valid.
 */
async function verifySignedQuery(
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

/** What one kind of signed link is: its name in messages, the method it is for, and the path it gives an id. */
export interface SignedLinkKind {
  what: string;
  method: 'GET' | 'PUT';
  path: (id: string) => string;
}

/**
 * Signed links of one kind, `{base}{path(id)}?expires=…&signature=…`:
 * HMAC-SHA256 over the method, the id and the expiry, with a key every
 * instance shares (`key`, from SigningKeys), checked by verifySignedQuery.
 */
export class SignedLinks {
  constructor(
    private readonly key: () => Promise<Buffer>,
    private readonly kind: SignedLinkKind,
  ) {}

  async sign(id: string, baseUrl: string, ttlSeconds: number, now = Date.now()): Promise<string> {
    const expires = String(Math.floor(now / 1000) + ttlSeconds);
    return `${baseUrl}${this.kind.path(id)}?expires=${expires}&signature=${await this.signatureOf(id, expires)}`;
  }

  /** 403 for a missing, forged or expired signature; else the seconds the link stays valid. */
  verify(id: string, query: SignedQuery, now = Date.now()): Promise<number> {
    return verifySignedQuery(this.kind.what, query, (expires) => this.signatureOf(id, expires), now);
  }

  private async signatureOf(id: string, expires: string): Promise<string> {
    return createHmac('sha256', await this.key()).update(`${this.kind.method}\n${id}\n${expires}`).digest('base64url');
  }
}
