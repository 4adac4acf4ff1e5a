import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { callbackSignature } from '../src/video-proxy/callbacks/callback-delivery.worker';

/** The README's receiver snippet, run as written against what the service really sends. */
describe('README callback verification snippet', () => {
  const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');
  const snippet = /```js\n([\s\S]*?function isFromRegistry[\s\S]*?)```/.exec(readme)?.[1];

  it('accepts a genuine delivery and refuses a forged or altered one', () => {
    expect(snippet).toBeDefined();
    const sandbox: { require: NodeRequire; Buffer: typeof Buffer; isFromRegistry?: (body: Buffer, header: unknown, secret: string) => boolean } = { require, Buffer };
    runInNewContext(`${snippet}\nthis.isFromRegistry = isFromRegistry;`, sandbox);
    const body = Buffer.from('{"task_id":"t1","state":"success"}');
    const header = callbackSignature('whsec_test', body.toString());
    expect(sandbox.isFromRegistry!(body, header, 'whsec_test')).toBe(true);
    expect(sandbox.isFromRegistry!(body, header, 'whsec_other')).toBe(false);
    expect(sandbox.isFromRegistry!(Buffer.from('{"task_id":"t1","state":"failed"}'), header, 'whsec_test')).toBe(false);
    expect(sandbox.isFromRegistry!(body, undefined, 'whsec_test')).toBe(false);
  });
});
