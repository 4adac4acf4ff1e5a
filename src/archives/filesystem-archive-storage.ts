import { OnModuleInit } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { constants, createReadStream } from 'node:fs';
import { access, FileHandle, mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { ArchiveStorage, ArchiveTooLargeError, NotAZipError, SHA256_HEX, StoredArchive } from './archive-storage';
import { assertReadableZip } from './zip-reader';

/** A zip starts with a local file header, or, when it holds no file, with its end-of-central-directory record. */
const ZIP_SIGNATURES = [Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.from([0x50, 0x4b, 0x05, 0x06])];
const SIGNATURE_LENGTH = 4;

/**
 * Temp files older than this when the service starts are a crashed
 * process's leftovers (an upload lasts at most REQUEST_TIMEOUT_MS, 10 minutes
 * at most); younger ones may be another instance's upload in progress.
 */
const STALE_TEMP_MS = 60 * 60 * 1000;

function assertZipSignature(head: Buffer): void {
  if (head.length === 0) throw new NotAZipError('the archive is empty');
  const signature = head.subarray(0, SIGNATURE_LENGTH);
  if (!ZIP_SIGNATURES.some((zip) => zip.equals(signature))) throw new NotAZipError('the archive is not a zip file');
}

/** FileHandle.write may write less than it was given; this writes all of it. */
async function writeAll(file: FileHandle, chunk: Buffer): Promise<void> {
  let offset = 0;
  while (offset < chunk.length) {
    offset += (await file.write(chunk, offset)).bytesWritten;
  }
}

/**
 * What a store holds and how it is checked: zip archives are refused as soon as their first bytes
 * cannot start a zip (a cheap refusal while the body streams) and read back as a zip once written;
 * other files (kept video results) are stored as they come.
 */
export interface StoredKind {
  extension: string;
  assertHead?: (head: Buffer) => void;
  assertFile?: (path: string) => Promise<void>;
}

export const ZIP_ARCHIVES: StoredKind = { extension: '.zip', assertHead: assertZipSignature, assertFile: assertReadableZip };
export const OPAQUE_FILES: StoredKind = { extension: '.bin' };

/** Copies `body` into `file`, hashing it, refusing it as soon as it is too large or its head is refused. */
async function copyChecked(body: Readable, file: FileHandle, maxBytes: number, assertHead?: (head: Buffer) => void): Promise<StoredArchive> {
  const hash = createHash('sha256');
  let size = 0;
  let head = Buffer.alloc(0);
  // Not destroyed when refused: for an HTTP request, that would reset the connection before the error reply goes out.
  for await (const data of body.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer | string>) {
    const chunk = typeof data === 'string' ? Buffer.from(data) : data;
    size += chunk.length;
    if (size > maxBytes) throw new ArchiveTooLargeError(maxBytes);
    if (assertHead && head.length < SIGNATURE_LENGTH) {
      head = Buffer.concat([head, chunk]);
      if (head.length >= SIGNATURE_LENGTH) assertHead(head);
    }
    hash.update(chunk);
    await writeAll(file, chunk);
  }
  if (assertHead && head.length < SIGNATURE_LENGTH) assertHead(head);
  return { sha256: hash.digest('hex'), size };
}

/** The operation's result, or undefined when the file or directory does not exist. */
async function unlessMissing<T>(operation: Promise<T>): Promise<T | undefined> {
  try {
    return await operation;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Makes a rename or a new entry in `path` durable (POSIX: fsync the directory itself). */
async function syncDirectory(path: string): Promise<void> {
  const directory = await open(path, 'r');
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}

/**
 * Archives as files `{root}/{sha256[0..2]}/{sha256}.zip`: 256 subdirectories
 * (as git stores objects) so no directory grows to hundreds of thousands of
 * entries, which slows listings, backups and some filesystems. An upload is
 * written to `{root}/tmp` (same filesystem, so the rename is atomic), hashed
 * as it streams, fsynced, read back as a zip (assertReadableZip), renamed to
 * its hash and the directory fsynced: a crash leaves either the whole archive
 * or none, never a partial file under an archive's name, and only a readable
 * zip ever gets an archive's name. Archives are never deleted or rewritten, so a size read
 * once stays true for every later read.
 *
 * A second instance with `OPAQUE_FILES` keeps video results
 * (`{STORAGE_DIR}/results/{sha256[0..2]}/{sha256}.bin`): the same layout and
 * crash safety, no zip checks, and files deleted by the results' retention.
 */
export class FilesystemArchiveStorage extends ArchiveStorage implements OnModuleInit {
  private readonly root: string;
  private readonly tempDir: string;

  constructor(
    root: string,
    private readonly kind: StoredKind = ZIP_ARCHIVES,
  ) {
    super();
    this.root = resolve(root);
    this.tempDir = join(this.root, 'tmp');
  }

  /**
   * Stops the start-up when the store cannot be written (a first upload
   * would fail otherwise), then removes temp files a crashed process left behind.
   */
  async onModuleInit(): Promise<void> {
    try {
      await mkdir(this.tempDir, { recursive: true });
      await access(this.tempDir, constants.W_OK);
    } catch (error) {
      throw new Error(`STORAGE_DIR: cannot write in ${this.root} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    }
    const staleBefore = Date.now() - STALE_TEMP_MS;
    for (const name of await readdir(this.tempDir)) {
      const path = join(this.tempDir, name);
      // Gone meanwhile: renamed into place, or removed by another instance starting too.
      const modified = (await unlessMissing(stat(path)))?.mtimeMs;
      if (modified !== undefined && modified < staleBefore) await rm(path, { force: true });
    }
  }

  async save(body: Readable, maxBytes: number): Promise<StoredArchive> {
    await mkdir(this.tempDir, { recursive: true });
    const tempPath = join(this.tempDir, `${randomUUID()}.part`);
    const file = await open(tempPath, 'wx');
    try {
      const archive = await copyChecked(body, file, maxBytes, this.kind.assertHead);
      await file.sync();
      await file.close();
      await this.kind.assertFile?.(tempPath);
      await this.moveIntoPlace(tempPath, archive.sha256);
      return archive;
    } catch (error) {
      try {
        // A no-op when the file was already closed.
        await file.close();
      } finally {
        await rm(tempPath, { force: true });
      }
      throw error;
    }
  }

  async stat(sha256: string): Promise<{ size: number } | null> {
    const found = await unlessMissing(stat(this.pathOf(sha256)));
    return found ? { size: found.size } : null;
  }

  read(sha256: string, range?: { start: number; end: number }): Readable {
    return createReadStream(this.pathOf(sha256), range ? { start: range.start, end: range.end } : {});
  }

  /** The archive's own file: archives are never rewritten or deleted, so it stays as it is while `use` reads it. */
  async withLocalFile<T>(sha256: string, use: (path: string) => Promise<T>): Promise<T> {
    const path = this.pathOf(sha256);
    if (!(await unlessMissing(stat(path)))) throw new Error(`archive ${sha256} is not stored`);
    return use(path);
  }

  async delete(sha256: string): Promise<void> {
    await rm(this.pathOf(sha256), { force: true });
  }

  private async moveIntoPlace(tempPath: string, sha256: string): Promise<void> {
    const target = this.pathOf(sha256);
    // Same name, same bytes: an archive already stored stays as it is.
    if (await this.stat(sha256)) {
      await rm(tempPath);
      return;
    }
    const directory = join(this.root, sha256.slice(0, 2));
    const created = await mkdir(directory, { recursive: true });
    await rename(tempPath, target);
    await syncDirectory(directory);
    if (created !== undefined) await syncDirectory(this.root);
  }

  /** The only way a name becomes a path: a name that is not a sha256 never reaches the filesystem. */
  private pathOf(sha256: string): string {
    if (!SHA256_HEX.test(sha256)) throw new Error(`not a sha256: ${JSON.stringify(sha256.slice(0, 80))}`);
    return join(this.root, sha256.slice(0, 2), `${sha256}${this.kind.extension}`);
  }
}
