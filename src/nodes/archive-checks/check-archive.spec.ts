import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { generateToken } from '../../auth/token-hash';
import { makeZip, unreadableZips } from '../../../test/support/zip';
import { craftZip, deflatedFill, unicodePathField } from '../../../test/support/zip-crafting';
import { checkArchive, Finding, summarizeFindings } from './check-archive';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

const INIT = 'from .nodes import NODE_CLASS_MAPPINGS\n';

/** Node code that says exec's and decoders' names without running decoded data: parsed, and clean. */
const NODES = `import base64
import re

PATTERN = re.compile(r"[0-9]+")


class PreviewText:
    RETURN_TYPES = ("STRING",)
    FUNCTION = "preview"
    CATEGORY = "text"

    def preview(self, model, image):
        model.eval()
        return (base64.b64encode(image.tobytes()).decode(),)


NODE_CLASS_MAPPINGS = {"PreviewText": PreviewText}
`;

const AWS = 'AKIAIOSFODNN7EXAMPLE';

/** An ELF file's start (x86-64 shared object), then zeros. */
const ELF = Buffer.concat([Buffer.from('7f454c4602010100000000000000000003003e00', 'hex'), Buffer.alloc(4096)]);

let dir: string;
/** Raw inflates (yauzl's, for deflated entries) made since the test began, and the bytes they put out. */
let inflates: number;
let inflated: number;

// Counted by wrapping zlib's createInflateRaw, which yauzl calls (read-only, so not jest.spyOn's to restore).
const createInflateRaw = Object.getOwnPropertyDescriptor(zlib, 'createInflateRaw') as PropertyDescriptor;
function countInflating(): void {
  Object.defineProperty(zlib, 'createInflateRaw', {
    ...createInflateRaw,
    value: (options?: zlib.ZlibOptions) => {
      const inflate = (createInflateRaw.value as typeof zlib.createInflateRaw)(options);
      inflates += 1;
      inflate.on('data', (chunk: Buffer) => (inflated += chunk.length));
      return inflate;
    },
  });
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'archive-checks-'));
  countInflating();
});
afterAll(() => {
  Object.defineProperty(zlib, 'createInflateRaw', createInflateRaw);
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  inflates = 0;
  inflated = 0;
});

let archives = 0;
async function check(zip: Buffer, version = '1.0.0'): Promise<Finding[]> {
  const path = join(dir, `archive-${(archives += 1)}.zip`);
  writeFileSync(path, zip);
  return checkArchive(path, { version });
}

describe('checkArchive', () => {
  it('finds nothing in a clean pack', async () => {
    const zip = makeZip({
      'comfy-pack/__init__.py': INIT,
      'comfy-pack/nodes.py': NODES,
      'comfy-pack/pyproject.toml': '[project]\nname = "comfy-pack"\nversion = "1.0.0"\n',
      'comfy-pack/README.md': '# Comfy pack\nSet AWS_ACCESS_KEY_ID to your key (AKIA and 16 more characters).\n',
      'comfy-pack/web/logo.png': '\x89PNG\r\n\x1a\n\0\0\0\rIHDR',
    });
    expect(await check(zip)).toEqual([]);
  });

  it('blocks unsafe paths: absolute, drive letters, ".." segments (backslashes are separators), symbolic links', async () => {
    const zip = craftZip([
      { name: 'pack/__init__.py' },
      { name: '../evil.py', content: 'x' },
      { name: '/etc/cron.d/evil', content: 'x' },
      { name: 'C:\\Windows\\evil.dll', content: 'x' },
      { name: 'pack\\..\\..\\evil.py', content: 'x' },
      { name: 'pack/link', content: '/etc/passwd', unixMode: 0o120777 },
      // Read as pack/hidden.py by yauzl (the Info-ZIP Unicode path field), as ../hidden.py by what ignores that field.
      { name: Buffer.from('../hidden.py'), extra: unicodePathField('../hidden.py', 'pack/hidden.py'), content: 'x' },
      { name: 'pack/nodes.py', content: 'x', unixMode: 0o100644 },
    ]);
    expect(await check(zip)).toEqual([
      { code: 'unsafe-path', severity: 'block', message: '"../evil.py" has a ".." segment', file: '../evil.py' },
      { code: 'unsafe-path', severity: 'block', message: '"/etc/cron.d/evil" is an absolute path', file: '/etc/cron.d/evil' },
      { code: 'unsafe-path', severity: 'block', message: '"C:/Windows/evil.dll" starts with a drive letter', file: 'C:/Windows/evil.dll' },
      { code: 'unsafe-path', severity: 'block', message: '"pack/../../evil.py" has a ".." segment', file: 'pack/../../evil.py' },
      { code: 'unsafe-path', severity: 'block', message: '"pack/link" is a symbolic link', file: 'pack/link' },
      { code: 'unsafe-path', severity: 'block', message: '"../hidden.py" has a ".." segment', file: '../hidden.py' },
    ]);
  });

  it('blocks an entry compressed over 200:1 to over 10 MiB, from its header, and checks the other entries', async () => {
    const weights = deflatedFill(16 * MiB);
    const zip = craftZip([
      { name: 'pack/__init__.py' },
      { name: 'pack/weights.bin', deflated: weights },
      { name: 'pack/config.py', content: `KEY = "${AWS}"\n` },
    ]);
    const ratio = Math.floor((16 * MiB) / weights.data.length);
    expect(await check(zip)).toEqual([
      {
        code: 'zip-bomb',
        severity: 'block',
        message: `"pack/weights.bin" inflates to 16 MiB from ${weights.data.length} bytes (${ratio}:1; over 200:1 and 10 MiB)`,
        file: 'pack/weights.bin',
      },
      { code: 'credentials', severity: 'block', message: '"pack/config.py" line 1 holds an AWS access key id (its value is not shown)', file: 'pack/config.py', line: 1 },
    ]);
    expect(inflates).toBe(0);
  });

  it('recognises a 1 GiB bomb from its headers and inflates nothing of it', async () => {
    const zip = craftZip([
      { name: 'pack/__init__.py' },
      { name: 'pack/model.safetensors', deflated: deflatedFill(GiB + MiB) },
    ]);
    expect(zip.length).toBeLessThan(2 * MiB);
    const started = performance.now();
    const findings = await check(zip);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(findings.map(({ code, message }) => [code, message])).toEqual([
      ['zip-bomb', 'the archive inflates to 1.001 GiB in all (1074790400 bytes), over 1 GiB'],
      ['zip-bomb', expect.stringMatching(/^"pack\/model\.safetensors" inflates to 1\.001 GiB from [\d.]+ MiB \(\d+:1; over 200:1 and 10 MiB\)$/)],
    ]);
    expect(inflated).toBe(0);
  });

  it('stops an entry inflating past the size its header declares', async () => {
    const zip = craftZip([
      { name: 'pack/__init__.py' },
      { name: 'pack/notes.txt', deflated: deflatedFill(64 * MiB, 'a'.charCodeAt(0)), declaredSize: MiB },
    ]);
    expect(await check(zip)).toEqual([
      { code: 'zip-bomb', severity: 'block', message: '"pack/notes.txt" inflates to more than the 1 MiB its header declares', file: 'pack/notes.txt' },
    ]);
    // yauzl stops at the first chunk (16 KiB out of zlib) past the declared size.
    expect(inflated).toBeLessThanOrEqual(MiB + 64 * 1024);
  });

  it('blocks more than 20,000 entries without reading them', async () => {
    const files = Object.fromEntries(Array.from({ length: 20_001 }, (_, n) => [`pack/${n}.txt`, '']));
    expect(await check(makeZip(files))).toEqual([{ code: 'zip-bomb', severity: 'block', message: 'the archive has 20001 entries, over 20000' }]);
  });

  it('blocks an archive with no __init__.py at the root or in a single top-level folder', async () => {
    expect(await check(makeZip({ 'README.md': 'hello', 'src/pack/__init__.py': '' }))).toEqual([
      { code: 'not-a-pack', severity: 'block', message: 'no __init__.py at the root of the archive or in a top-level folder' },
    ]);
    const folders = makeZip({ 'a/__init__.py': '', 'b/__init__.py': '', 'c/__init__.py': '', 'd/__init__.py': '' });
    expect(await check(folders)).toEqual([
      {
        code: 'not-a-pack',
        severity: 'block',
        message: 'no __init__.py at the root of the archive, and one in each of 4 top-level folders (a/, b/, c/ and 1 more) rather than in a single one',
      },
    ]);
    expect(await check(makeZip({ '__init__.py': INIT }))).toEqual([]);
  });

  it('says an archive whose central directory cannot be read is not a pack, and a module whose local header is broken not checked', async () => {
    const brokenLocalHeaders = ['a local header whose file-name length is 65535', 'a central-directory entry whose local-header offset points at garbage'];
    for (const [what, zip] of Object.entries(unreadableZips())) {
      const [found, ...others] = await check(zip);
      expect(others).toEqual([]);
      if (brokenLocalHeaders.includes(what)) {
        expect(found).toMatchObject({ code: 'obfuscated-exec', severity: 'review', file: 'node/__init__.py' });
        expect(found.message).toMatch(/^"node\/__init__.py" was not checked for code run from decoded data \(not readable: .+\)$/);
      } else {
        expect(found).toMatchObject({ code: 'not-a-pack', severity: 'block' });
        expect(found.message).toMatch(/^the archive is not a readable zip file: .+/);
      }
    }
  });

  it('blocks credentials in any text file, naming file and line, never the value', async () => {
    const token = generateToken();
    const zip = makeZip({
      'pack/__init__.py': INIT,
      'pack/nodes/config.py': `# settings\nREGION = "eu-west-1"\nAWS_KEY = "${AWS}"\n`,
      'pack/deploy/notes': `first\n\nexport NODE_REGISTRY_TOKEN=${token}\n`,
      // Binary (a NUL in its first 8 KiB): not read for secrets.
      'pack/model.bin': `\0\0\0${AWS}`,
    });
    const findings = await check(zip);
    expect(findings).toEqual([
      { code: 'credentials', severity: 'block', message: '"pack/nodes/config.py" line 3 holds an AWS access key id (its value is not shown)', file: 'pack/nodes/config.py', line: 3 },
      { code: 'credentials', severity: 'block', message: '"pack/deploy/notes" line 3 holds an API token of this registry (its value is not shown)', file: 'pack/deploy/notes', line: 3 },
    ]);
    const summary = summarizeFindings(findings);
    expect(summary).toBe('blocked: credentials in pack/nodes/config.py line 3; credentials in pack/deploy/notes line 3');
    for (const said of [JSON.stringify(findings), summary]) {
      expect(said).not.toContain(AWS);
      expect(said).not.toContain(token.slice(4, 20));
    }
  });

  it('reads UTF-16 text files for credentials, with or without a byte-order mark', async () => {
    const text = `first line\nkey = "${AWS}"\n`;
    const bigEndian = Buffer.from(text, 'utf16le').swap16();
    const zip = craftZip([
      { name: 'pack/__init__.py', content: INIT },
      { name: 'pack/le.txt', content: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]), deflate: true },
      { name: 'pack/be.txt', content: Buffer.concat([Buffer.from([0xfe, 0xff]), bigEndian]) },
      { name: 'pack/no-bom.txt', content: Buffer.from(text, 'utf16le') },
    ]);
    const found = (await check(zip)).filter((finding) => finding.code === 'credentials');
    expect(found.map(({ file, line }) => [file, line])).toEqual([
      ['pack/le.txt', 2],
      ['pack/be.txt', 2],
      ['pack/no-bom.txt', 2],
    ]);
  });

  it('flags code run from decoded data, found with the Python parser, and modules it could not check', async () => {
    const loader = ['import base64', 'import zlib', '', '', 'def load(blob):', '    source = zlib.decompress(base64.b64decode(blob))', '    return source', '', '', 'PAYLOAD = "eJwrKMrMK1EwAAALrwKh"', '', 'exec(load(PAYLOAD).decode())', 'exec(zlib.decompress(base64.b64decode(PAYLOAD)))', ''];
    const big = `import base64\n${'# padding\n'.repeat(110_000)}exec(base64.b64decode(s))\n`;
    const zip = craftZip([
      { name: 'pack/__init__.py', content: INIT },
      { name: 'pack/loader.py', content: loader.join('\n'), deflate: true },
      { name: 'pack/packed.py', content: 'exec(base64.b64decode(s))', method: 14 }, // LZMA, which yauzl does not read
      { name: 'pack/big.py', content: big, deflate: true },
      { name: 'pack/big_clean.py', content: `${'# padding\n'.repeat(110_000)}print("hello")\n`, deflate: true },
    ]);
    expect(await check(zip)).toEqual([
      { code: 'obfuscated-exec', severity: 'review', message: '"pack/loader.py" line 13 runs exec() on what zlib.decompress() decodes', file: 'pack/loader.py', line: 13 },
      { code: 'obfuscated-exec', severity: 'review', message: '"pack/packed.py" was not checked for code run from decoded data (compression method 14 is not read)', file: 'pack/packed.py' },
      { code: 'obfuscated-exec', severity: 'review', message: '"pack/big.py" was not checked for code run from decoded data (over 1048576 bytes)', file: 'pack/big.py' },
    ]);
  });

  it('flags ELF, PE and Mach-O files, whatever their names, but not Java classes', async () => {
    const pe = Buffer.alloc(1024);
    pe.write('MZ', 0, 'latin1');
    pe.writeUInt32LE(0x80, 0x3c);
    pe.write('PE\0\0', 0x80, 'latin1');
    const zip = craftZip([
      { name: '__init__.py', content: INIT },
      { name: 'lib/_native.cpython-311-x86_64-linux-gnu.so', content: ELF, deflate: true },
      { name: 'bin/helper.exe', content: pe },
      { name: 'bin/helper', content: Buffer.concat([Buffer.from('cafebabe00000002', 'hex'), Buffer.alloc(64)]) },
      { name: 'java/Helper.class', content: Buffer.concat([Buffer.from('cafebabe00000034', 'hex'), Buffer.alloc(64)]) },
    ]);
    expect(await check(zip)).toEqual([
      { code: 'native-binary', severity: 'review', message: '"lib/_native.cpython-311-x86_64-linux-gnu.so" is an ELF binary (Linux)', file: 'lib/_native.cpython-311-x86_64-linux-gnu.so' },
      { code: 'native-binary', severity: 'review', message: '"bin/helper.exe" is a PE binary (Windows)', file: 'bin/helper.exe' },
      { code: 'native-binary', severity: 'review', message: '"bin/helper" is a Mach-O universal binary (macOS)', file: 'bin/helper' },
    ]);
  });

  it("notes a pack's pyproject.toml version that is not the published one", async () => {
    const pyproject = (version: string) => `[project]\nname = "comfy-pack"\nversion = "${version}"\n`;
    const zip = makeZip({ 'comfy-pack/__init__.py': INIT, 'comfy-pack/pyproject.toml': pyproject('1.2.0'), 'other/pyproject.toml': pyproject('9.9.9') });
    expect(await check(zip, '1.3.0')).toEqual([
      {
        code: 'version-mismatch',
        severity: 'info',
        message: '"comfy-pack/pyproject.toml" says version "1.2.0", but the version was published as "1.3.0"',
        file: 'comfy-pack/pyproject.toml',
      },
    ]);
    expect(await check(zip, 'v1.2.0')).toEqual([]);
    expect(await check(makeZip({ '__init__.py': INIT, 'pyproject.toml': pyproject('1.2') }), '1.2.0')).toEqual([]);
  });

  it('lists findings in archive order across both passes, at most 20 of a code', async () => {
    const links = Array.from({ length: 25 }, (_, n) => ({ name: `pack/link${n}`, content: 'x', unixMode: 0o120777 }));
    const zip = craftZip([{ name: 'pack/__init__.py' }, { name: 'pack/keys.txt', content: AWS }, ...links, { name: 'pack/lib.so', content: ELF }]);
    const findings = await check(zip);
    expect(findings.map(({ code, file }) => `${code} ${file}`)).toEqual([
      'credentials pack/keys.txt',
      ...links.slice(0, 20).map(({ name }) => `unsafe-path ${name}`),
      'native-binary pack/lib.so',
      'unsafe-path undefined',
    ]);
    expect(findings[findings.length - 1].message).toBe('5 more unsafe-path findings, not listed');
  });

  it('rejects when the file cannot be read', async () => {
    await expect(checkArchive(join(dir, 'missing.zip'), { version: '1.0.0' })).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
