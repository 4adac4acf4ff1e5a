import { Entry, open, Options, ZipFile } from 'yauzl';
import { NotAZipError } from './archive-storage';

/**
 * As an installer's zip reader sees the file: the central directory found through the
 * end-of-central-directory record, read entry by entry on demand, stored entries' sizes
 * checked against each other, names decoded (and refused when absolute or climbing out
 * with `..`), the file closed at the end or on the first error.
 */
const OPTIONS: Options = { lazyEntries: true, autoClose: true, validateEntrySizes: true, strictFileNames: false, decodeStrings: true };

/** A yauzl ZipFile's entries as promises, and its closing as one that settles once its file descriptor is closed. */
class ZipEntries {
  /** Whether a readEntry() awaits its answer: an `error` then is the zip's, anything else is the descriptor's. */
  private reading = false;
  private readonly released: Promise<void>;

  constructor(private readonly zipfile: ZipFile) {
    this.released = new Promise((settle) => {
      // After the last entry or a read error (autoClose), or after close().
      zipfile.once('close', () => settle());
      // Also keeps an `error` emitted between reads from being thrown. yauzl emits one `error` at most, so
      // a failure to close after a read error goes unreported (and unawaited, the one case this cannot see).
      zipfile.on('error', () => {
        if (!this.reading) settle();
      });
    });
  }

  /** The next entry of the central directory, or undefined after the last. */
  next(): Promise<Entry | undefined> {
    return new Promise((resolve, reject) => {
      const settle = () => {
        this.reading = false;
        this.zipfile.off('entry', onEntry).off('end', onEnd).off('error', onError);
      };
      const onEntry = (entry: Entry) => {
        settle();
        resolve(entry);
      };
      const onEnd = () => {
        settle();
        resolve(undefined);
      };
      const onError = (error: Error) => {
        settle();
        reject(error);
      };
      this.zipfile.on('entry', onEntry).on('end', onEnd).on('error', onError);
      this.reading = true;
      this.zipfile.readEntry();
    });
  }

  /** The entry's local header, read only to be checked (see assertReadableZip). */
  async checkLocalHeader(entry: Entry): Promise<void> {
    await this.zipfile.readLocalFileHeaderPromise(entry, { minimal: true });
  }

  /** Closes the file (a no-op when yauzl already did) and waits until its descriptor is closed. */
  async close(): Promise<void> {
    this.zipfile.close();
    await this.released;
  }
}

function openZip(path: string): Promise<ZipEntries> {
  return new Promise((resolve, reject) => {
    // When the open fails, yauzl closes the file itself.
    open(path, OPTIONS, (error, zipfile) => (error ? reject(error) : resolve(new ZipEntries(zipfile))));
  });
}

/**
 * Refuses, with NotAZipError, a file that a zip reader (yauzl) cannot read, so that
 * no archive gets a downloadUrl that no installer can open (starting with a zip
 * signature proves nothing): the end-of-central-directory record must be found and
 * point at a central directory holding as many well-formed entries as it counts, and
 * each entry's local header must be where the central directory says, with its
 * signature, and be followed by the entry's compressed size of file data within the
 * file. These are the checks yauzl makes before it would stream an entry; no file
 * data is read or decompressed. A file that cannot be opened or read at all rejects
 * with that error (the server's fault, not the upload's).
 */
export async function assertReadableZip(path: string): Promise<void> {
  try {
    const zip = await openZip(path);
    try {
      for (let entry = await zip.next(); entry; entry = await zip.next()) await zip.checkLocalHeader(entry);
    } finally {
      await zip.close();
    }
  } catch (error) {
    // EMFILE, EIO: the server's fault. yauzl's own errors name no system call.
    if ((error as NodeJS.ErrnoException).syscall !== undefined) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new NotAZipError(`the archive is not a readable zip file: ${reason}`);
  }
}
