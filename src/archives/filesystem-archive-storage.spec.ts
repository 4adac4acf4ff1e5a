import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buffer, text } from 'node:stream/consumers';
import { ArchiveTooLargeError, NotAZipError } from './archive-storage';
import { FilesystemArchiveStorage, OPAQUE_FILES } from './filesystem-archive-storage';
import { filesUnder } from '../../test/support/files';
import { makeZip, refusedZips, unreadableZips } from '../../test/support/zip';

const EMPTY_ZIP = makeZip({});
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A stream of `chunks`, one at a time, as a request body arrives. */
const chunked = (...chunks: Buffer[]) => Readable.from(chunks, { objectMode: false });

describe('FilesystemArchiveStorage', () => {
  let root: string;
  let storage: FilesystemArchiveStorage;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'archive-storage-'));
    storage = new FilesystemArchiveStorage(root);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('streams the body into {sha[0..2]}/{sha}.zip and reports its hash and size', async () => {
    const bytes = makeZip({ 'hello.txt': 'hello archive' });
    const stored = await storage.save(chunked(bytes.subarray(0, 2), bytes.subarray(2, 9), bytes.subarray(9)), 1000);
    const hash = sha256(bytes);
    expect(stored).toEqual({ sha256: hash, size: bytes.length });
    expect(filesUnder(root)).toEqual([join(hash.slice(0, 2), `${hash}.zip`)]);
    expect(readFileSync(join(root, hash.slice(0, 2), `${hash}.zip`))).toEqual(bytes);
    expect(await storage.stat(hash)).toEqual({ size: bytes.length });
  });

  it('accepts an empty zip (end-of-central-directory signature) and a body exactly at the limit', async () => {
    expect(EMPTY_ZIP.subarray(0, 4)).toEqual(Buffer.from('PK\x05\x06', 'latin1'));
    expect(await storage.save(chunked(EMPTY_ZIP), EMPTY_ZIP.length)).toEqual({ sha256: sha256(EMPTY_ZIP), size: 22 });
  });

  it('saving an archive already stored is a no-op that resolves, leaving one file', async () => {
    const bytes = makeZip({ 'same.txt': 'same' });
    const first = await storage.save(chunked(bytes), 1000);
    expect(await storage.save(chunked(bytes), 1000)).toEqual(first);
    expect(filesUnder(root)).toEqual([join(first.sha256.slice(0, 2), `${first.sha256}.zip`)]);
  });

  it('past maxBytes: ArchiveTooLargeError, no file and no temp file left, the body not destroyed', async () => {
    const body = chunked(makeZip({ 'x.txt': 'x'.repeat(50) }), Buffer.alloc(100), Buffer.alloc(100));
    await expect(storage.save(body, 100)).rejects.toThrow(ArchiveTooLargeError);
    expect(filesUnder(root)).toEqual([]);
    // The caller (an HTTP request) still owns the rest: it must be able to reply, then drain it.
    expect(body.destroyed).toBe(false);
  });

  it('not a zip, empty, or shorter than a signature: NotAZipError, nothing left', async () => {
    for (const body of [chunked(Buffer.from('P'), Buffer.from('K\x05\x07 not a zip')), chunked(), chunked(Buffer.from('PK'))]) {
      await expect(storage.save(body, 1000)).rejects.toThrow(NotAZipError);
    }
    await expect(storage.save(chunked(), 1000)).rejects.toThrow('the archive is empty');
    expect(filesUnder(root)).toEqual([]);
  });

  it.each(Object.entries(refusedZips()))(
    'a body that starts like a zip but does not read as one (%s): NotAZipError, nothing stored, no temp file left',
    async (_, bytes) => {
      const save = storage.save(chunked(bytes.subarray(0, 3), bytes.subarray(3)), 100_000);
      await expect(save).rejects.toThrow(NotAZipError);
      await expect(save).rejects.toThrow(/^the archive is not a readable zip file: /);
      expect(filesUnder(root)).toEqual([]);
      expect(await storage.stat(sha256(bytes))).toBeNull();
    },
  );

  it('an unreadable zip whose bytes are already stored under their name is refused too, leaving that file as it was', async () => {
    // Stored before uploads were read back as zips.
    const bytes = unreadableZips()['a local-header signature followed by garbage'];
    const hash = sha256(bytes);
    await mkdir(join(root, hash.slice(0, 2)));
    writeFileSync(join(root, hash.slice(0, 2), `${hash}.zip`), bytes);
    await expect(storage.save(chunked(bytes), 1000)).rejects.toThrow(NotAZipError);
    expect(filesUnder(root)).toEqual([join(hash.slice(0, 2), `${hash}.zip`)]);
  });

  it('a body that fails mid-way (a client aborting its upload) rejects with its error and leaves nothing', async () => {
    let reads = 0;
    const body = new Readable({
      read() {
        // The first chunk arrives; asked for more, the connection is reset (as IncomingMessage does on a client abort).
        if (reads++ === 0) this.push(makeZip({ 'first.txt': 'first part' }));
        else this.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
      },
    });
    await expect(storage.save(body, 1000)).rejects.toThrow('aborted');
    expect(reads).toBe(2);
    expect(filesUnder(root)).toEqual([]);
  });

  it('reads a whole archive or an inclusive byte range', async () => {
    const bytes = makeZip({ 'n.txt': '0123456789' });
    const { sha256: hash } = await storage.save(chunked(bytes), 1000);
    expect(await buffer(storage.read(hash))).toEqual(bytes);
    // The file's data follows its 30-byte local header and 5-byte name.
    expect(await text(storage.read(hash, { start: 35, end: 38 }))).toBe('0123');
    expect(await text(storage.read(hash, { start: 44, end: 44 }))).toBe('9');
  });

  it('withLocalFile hands `use` the stored file itself and resolves with its result; an absent archive never reaches `use`', async () => {
    const bytes = makeZip({ 'local.txt': 'local file' });
    const { sha256: hash } = await storage.save(chunked(bytes), 1000);
    const read = await storage.withLocalFile(hash, (path) => Promise.resolve({ path, bytes: readFileSync(path) }));
    expect(read).toEqual({ path: join(root, hash.slice(0, 2), `${hash}.zip`), bytes });
    const use = jest.fn(() => Promise.resolve());
    await expect(storage.withLocalFile('b'.repeat(64), use)).rejects.toThrow('is not stored');
    await expect(storage.withLocalFile('../../etc/passwd', use)).rejects.toThrow('not a sha256');
    expect(use).not.toHaveBeenCalled();
  });

  it('stat of an absent archive is null; a name that is not a sha256 never becomes a path', async () => {
    expect(await storage.stat('a'.repeat(64))).toBeNull();
    await expect(storage.stat('../../etc/passwd')).rejects.toThrow('not a sha256');
    expect(() => storage.read('A'.repeat(64))).toThrow('not a sha256');
  });

  it('at startup, removes temp files older than an hour and keeps younger ones (another instance’s upload)', async () => {
    await mkdir(join(root, 'tmp'));
    writeFileSync(join(root, 'tmp', 'old.part'), 'x');
    writeFileSync(join(root, 'tmp', 'new.part'), 'x');
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    utimesSync(join(root, 'tmp', 'old.part'), twoHoursAgo, twoHoursAgo);
    await storage.onModuleInit();
    expect(filesUnder(root)).toEqual([join('tmp', 'new.part')]);
  });

  it('at startup, makes a missing store, and refuses one it cannot write in, naming STORAGE_DIR', async () => {
    await new FilesystemArchiveStorage(join(root, 'new', 'store')).onModuleInit();
    expect(statSync(join(root, 'new', 'store', 'tmp')).isDirectory()).toBe(true);
    writeFileSync(join(root, 'a-file'), '');
    await expect(new FilesystemArchiveStorage(join(root, 'a-file')).onModuleInit()).rejects.toThrow(/^STORAGE_DIR: cannot write in .*a-file \(ENOTDIR\)$/);
  });

  it('keeps any bytes with OPAQUE_FILES (kept video results), within the limit, and deletes them', async () => {
    const results = new FilesystemArchiveStorage(join(root, 'results'), OPAQUE_FILES);
    const bytes = Buffer.from('not a zip at all');
    const hash = sha256(bytes);
    expect(await results.save(chunked(bytes.subarray(0, 3), bytes.subarray(3)), bytes.length)).toEqual({ sha256: hash, size: bytes.length });
    expect(filesUnder(join(root, 'results'))).toEqual([join(hash.slice(0, 2), `${hash}.bin`)]);
    expect(await text(results.read(hash, { start: 4, end: 6 }))).toBe('a z');
    await expect(results.save(chunked(bytes), bytes.length - 1)).rejects.toBeInstanceOf(ArchiveTooLargeError);
    await results.delete(hash);
    await results.delete(hash);
    expect(await results.stat(hash)).toBeNull();
  });
});
