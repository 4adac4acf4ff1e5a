import { mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeZip, refusedZips } from '../../test/support/zip';
import { NotAZipError } from './archive-storage';
import { assertReadableZip } from './zip-reader';

/** How many of this process's file descriptors are open on `path` (Linux). */
const openOn = (path: string) =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === path;
    } catch {
      return false; // closed meanwhile (the descriptor readdir itself used)
    }
  }).length;

/** How assertReadableZip settles for `path`, and how many descriptors are open on it at that moment. */
const check = (path: string) =>
  assertReadableZip(path).then(
    () => ({ error: undefined, openAfter: openOn(path) }),
    (error: Error) => ({ error, openAfter: openOn(path) }),
  );

describe('assertReadableZip', () => {
  let dir: string;
  let path: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'zip-reader-'));
    path = join(dir, 'upload.part');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('accepts a zip, a zip of several files, and the 22-byte empty zip, and closes the file', async () => {
    for (const zip of [makeZip({ 'a.py': 'x = 1\n' }), makeZip({ 'node/__init__.py': '', 'node/README.md': '# A node\n'.repeat(50), 'node/nodes.py': 'y' }), makeZip({})]) {
      writeFileSync(path, zip);
      expect(await check(path)).toEqual({ error: undefined, openAfter: 0 });
    }
  });

  it.each(Object.entries(refusedZips()))('refuses %s with NotAZipError naming the reason, and closes the file', async (_, bytes) => {
    writeFileSync(path, bytes);
    const { error, openAfter } = await check(path);
    expect(error).toBeInstanceOf(NotAZipError);
    expect(error?.message).toMatch(/^the archive is not a readable zip file: \S/);
    expect(error?.message).not.toMatch(/zip file: the archive is not/);
    expect(openAfter).toBe(0);
  });

  it('names what is wrong', async () => {
    const broken = refusedZips();
    const reason = async (name: string) => {
      writeFileSync(path, broken[name]);
      return (await check(path)).error?.message ?? 'accepted';
    };
    expect(await reason('a local-header signature alone')).toMatch(/end of central directory record signature not found/i);
    expect(await reason('an EOCD record whose central-directory offset is wrong')).toMatch(/invalid central directory file header signature/);
    expect(await reason('a local header whose file-name length is 65535')).toMatch(/file data overflows file bounds/);
    expect(await reason('a central-directory entry whose local-header offset points at garbage')).toMatch(/invalid local file header signature/);
    expect(await reason('a local header whose file-name length is 3 more than the central directory’s')).toMatch(/local header names it differently/);
    expect(await reason('a local header naming the entry differently')).toMatch(/local header names it differently/);
    expect(await reason('a local header giving another compression method')).toMatch(/another compression method/);
  });

  it('a file it cannot open or read is the server’s fault, not the upload’s: its error, not NotAZipError', async () => {
    const refusal = assertReadableZip(join(dir, 'absent.zip'));
    await expect(refusal).rejects.toMatchObject({ code: 'ENOENT', syscall: 'open' });
    await expect(refusal).rejects.not.toThrow(NotAZipError);
  });
});
