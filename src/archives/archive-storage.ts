import { Readable } from 'node:stream';

export interface StoredArchive {
  sha256: string;
  size: number;
}

/** An archive's name: its sha256, hex, lowercase. */
export const SHA256_HEX = /^[0-9a-f]{64}$/;

export class ArchiveTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`the archive is larger than ${maxBytes} bytes`);
  }
}

export class NotAZipError extends Error {}

/** Content-addressed archive store. The filesystem store is the default; a cloud object store could implement this later. */
export abstract class ArchiveStorage {
  /**
   * Streams `body` into the store under its sha256 (hex, lowercase). Rejects
   * with ArchiveTooLargeError past maxBytes, and with NotAZipError when the
   * body does not read as a zip: its first bytes are not a zip local-file or
   * empty-archive signature (refused while it streams), or, once it is all
   * written, a zip reader finds its end-of-central-directory record, central
   * directory and local file headers inconsistent (no file data is read or
   * decompressed). On any failure nothing is left behind (no temp file, no
   * partial file, nothing under the archive's name). Writing an
   * archive already stored is a no-op that still resolves. `body` is read but
   * never destroyed: after a failure the caller decides what happens to the
   * rest of it.
   */
  abstract save(body: Readable, maxBytes: number): Promise<StoredArchive>;

  /** Size of a stored archive, or null when absent. */
  abstract stat(sha256: string): Promise<{ size: number } | null>;

  /** The bytes of a stored archive, or of the inclusive range [start, end]. */
  abstract read(sha256: string, range?: { start: number; end: number }): Readable;

  /**
   * Runs `use` with a path to the stored archive on the local filesystem, for
   * readers that need random access to a file (a zip reader): the filesystem
   * store passes its own file; a remote store would stage a temporary copy and
   * remove it once `use` settles. `use` only reads the file. Rejects without
   * calling `use` when the archive is absent.
   */
  abstract withLocalFile<T>(sha256: string, use: (path: string) => Promise<T>): Promise<T>;

  /**
   * Removes a stored file (a no-op when absent). Archives are never deleted;
   * only stores of files with a retention (kept video results) call this.
   */
  abstract delete(sha256: string): Promise<void>;
}
