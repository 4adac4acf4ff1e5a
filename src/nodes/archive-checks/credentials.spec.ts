import { generateToken, generateWebhookSecret } from '../../auth/token-hash';
import { SecretScan } from './credentials';
import { Finding } from './findings';
import { LineBlocks, MAX_LINE_CHARS } from './text-blocks';

/** Fake secrets of each kind, made up here (shapes only). */
const AWS = 'AKIAIOSFODNN7EXAMPLE';
const GITHUB = `ghp_${'a1B2c3D4e5'.repeat(3)}a1B2c3`;
const GITHUB_FINE_GRAINED = `github_pat_11ABCDEFG0${'x'.repeat(70)}`;
const SLACK = 'xoxb-1234567890-abcdefghij';
/** The other kinds of Slack token: client, cookie (URL-encoded), rotating refresh and configuration tokens. */
const SLACK_KINDS = ['xoxc-1234567890-abcdefghij', 'xoxd-abcdefghij%2Fklmnop', 'xoxe-1-abcdefghijklmnopqrst', 'xoxe.xoxp-1-abcdefghijklmnop'];

/** The findings for `text` streamed in `chunkSize`-byte chunks through LineBlocks, as (line, kind) pairs. */
function scan(text: string, chunkSize = 1000): [number | undefined, string][] {
  const found: Finding[] = [];
  const secrets = new SecretScan('config.py', (finding) => found.push(finding));
  const blocks = new LineBlocks((block, line) => secrets.read(block, line));
  const bytes = Buffer.from(text);
  for (let at = 0; at < bytes.length; at += chunkSize) blocks.push(bytes.subarray(at, at + chunkSize));
  blocks.end();
  return found.map(({ line, message }) => [line, message.replace(/^"config.py" line \d+ holds /, '')]);
}

describe('SecretScan', () => {
  it('finds each kind of secret, naming its line and kind, never its value', () => {
    const token = generateToken();
    const webhook = generateWebhookSecret();
    const text = [
      '# settings', // 1
      '-----BEGIN RSA PRIVATE KEY-----', // 2
      '-----BEGIN OPENSSH PRIVATE KEY-----', // 3
      '-----BEGIN PGP PRIVATE KEY BLOCK-----', // 4
      '-----BEGIN PRIVATE KEY-----', // 5
      `aws_key = "${AWS}"`, // 6
      `token = '${GITHUB}'; other = '${GITHUB_FINE_GRAINED}'`, // 7
      `SLACK=${SLACK}`, // 8
      `REGISTRY_TOKEN=${token}`, // 9
      `callback_secret: ${webhook}`, // 10
      ...SLACK_KINDS.map((slack) => `slack = "${slack}"`), // 11…
    ].join('\n');
    const found = scan(text);
    expect(found).toEqual([
      [2, 'a private key block (its value is not shown)'],
      [3, 'a private key block (its value is not shown)'],
      [4, 'a private key block (its value is not shown)'],
      [5, 'a private key block (its value is not shown)'],
      [6, 'an AWS access key id (its value is not shown)'],
      [7, 'a GitHub token (its value is not shown)'], // two on the line: one finding
      [8, 'a Slack token (its value is not shown)'],
      [9, 'an API token of this registry (its value is not shown)'],
      [10, 'a webhook signing secret of this registry (its value is not shown)'],
      ...SLACK_KINDS.map((_, n): [number, string] => [11 + n, 'a Slack token (its value is not shown)']),
    ]);
    const said = JSON.stringify(found);
    for (const secret of [AWS, GITHUB, GITHUB_FINE_GRAINED, SLACK, token, webhook]) expect(said).not.toContain(secret.slice(4, 14));
  });

  it('leaves out look-alikes', () => {
    const text = [
      '-----BEGIN PUBLIC KEY-----',
      '-----BEGIN CERTIFICATE-----',
      'AKIA1234', // too short
      'XAKIAIOSFODNN7EXAMPLE', // inside a longer word
      'ghp_short',
      'xoxb-123', // too short
      'xoxo-and-kisses-from-me', // no kind of Slack token
      `${generateToken()}x`, // longer than a token
      generateToken().slice(0, -1), // shorter
      'nrt_' + 'A'.repeat(42) + 'B', // the last character cannot end 32 bytes of base64url
    ].join('\n');
    expect(scan(text)).toEqual([]);
  });

  it('counts lines across chunks, and finds a secret cut by a chunk boundary', () => {
    const lines = Array.from({ length: 500 }, (_, n) => `line ${n + 1} of padding text`);
    lines[299] = `key = "${AWS}"`;
    for (const chunkSize of [1, 7, 64, 4096, 1 << 20]) expect(scan(lines.join('\n'), chunkSize)).toEqual([[300, 'an AWS access key id (its value is not shown)']]);
  });

  it('reads a line longer than MAX_LINE_CHARS in overlapping windows, with its line number, once per kind', () => {
    // One across the first window's end, one far past it, one where the line ends.
    const long = `${'x'.repeat(MAX_LINE_CHARS - 10)} ${AWS} ${'y'.repeat(3 * MAX_LINE_CHARS)} ${GITHUB} ${'z'.repeat(MAX_LINE_CHARS)} ${AWS}`;
    expect(scan(`first\n${long}\nlast ${SLACK}\n`, 16 * 1024)).toEqual([
      [2, 'an AWS access key id (its value is not shown)'],
      [2, 'a GitHub token (its value is not shown)'],
      [3, 'a Slack token (its value is not shown)'],
    ]);
  });
});
