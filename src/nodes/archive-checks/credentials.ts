import { TOKEN_PREFIX } from '../../auth/token-hash';
import { Finding, finding, quote } from './findings';
import { lineBreaks } from './text-blocks';

/**
 * This registry's secrets: a prefix and 32 random bytes in unpadded base64url (src/auth/token-hash.ts),
 * 43 characters whose last holds 4 bits of them and 2 zero bits, so it is one of these 16.
 */
const registrySecret = (prefix: string): string => `(?<![\\w-])${prefix}[\\w-]{42}[AEIMQUYcgkosw048](?![\\w-])`;

/** Kinds of secret, each named in findings (never the value) by its description. */
const SECRETS: readonly { kind: string; pattern: string }[] = [
  // PEM (RSA, EC, DSA, OPENSSH, ENCRYPTED, plain PKCS #8) and PGP ("PGP PRIVATE KEY BLOCK").
  { kind: 'a private key block', pattern: '-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----' },
  { kind: 'an AWS access key id', pattern: '\\bAKIA[0-9A-Z]{16}\\b' },
  // Personal (ghp_), OAuth (gho_), user-to-server (ghu_), server-to-server (ghs_), refresh (ghr_), fine-grained (github_pat_).
  { kind: 'a GitHub token', pattern: '\\b(?:gh[pousr]_[A-Za-z0-9]{36}|github_pat_\\w{22,})' },
  // Bot (xoxb), user (xoxp), app (xoxa), refresh (xoxr), legacy (xoxs), client and cookie (xoxc, xoxd, URL-encoded),
  // rotating (xoxe-, xoxe.xoxp-): "xox…-" in the contract.
  { kind: 'a Slack token', pattern: '\\bxox[abcdeprs](?:\\.xox[abcdeprs])?-[A-Za-z0-9%-]{10,}' },
  { kind: 'an API token of this registry', pattern: registrySecret(TOKEN_PREFIX) },
  // generateWebhookSecret's prefix.
  { kind: 'a webhook signing secret of this registry', pattern: registrySecret('whsec_') },
];

/** All the kinds in one pass: group k + 1 matches SECRETS[k]. */
const ANY_SECRET = new RegExp(SECRETS.map(({ pattern }) => `(${pattern})`).join('|'), 'g');

/**
 * Finds secrets in a text file's blocks of lines (LineBlocks), one finding per kind and line: the
 * file and line are named, the value never is.
 */
export class SecretScan {
  /** The kinds found on the last line a secret was on, since a long line's windows overlap. */
  private lastLine = 0;
  private readonly kindsOnLastLine = new Set<string>();

  constructor(
    private readonly file: string,
    private readonly report: (found: Finding) => void,
  ) {}

  read(text: string, firstLine: number): void {
    let line = firstLine;
    let counted = 0;
    ANY_SECRET.lastIndex = 0;
    for (let match = ANY_SECRET.exec(text); match !== null; match = ANY_SECRET.exec(text)) {
      line += lineBreaks(text, counted, match.index);
      counted = match.index;
      const { kind } = SECRETS[match.findIndex((group, index) => index > 0 && group !== undefined) - 1];
      this.add(kind, line);
    }
  }

  private add(kind: string, line: number): void {
    if (line !== this.lastLine) {
      this.lastLine = line;
      this.kindsOnLastLine.clear();
    }
    if (this.kindsOnLastLine.has(kind)) return;
    this.kindsOnLastLine.add(kind);
    this.report(finding('credentials', `${quote(this.file)} line ${line} holds ${kind} (its value is not shown)`, this.file, line));
  }
}
