import { open } from 'node:fs/promises';
import { Entry, fromFd, LocalFileHeader, Options, ZipFile } from 'yauzl';
import { NotAZipError } from './archive-storage';

/**
 * As an installer's zip reader sees the file: the central directory found through the
 * end-of-central-directory record, read entry by entry on demand, stored entries' sizes
 * checked against each other. Names are left undecoded: an absolute or climbing (`..`)
 * name is the archive checks' `unsafe-path` finding (docs/api-rules.md §10), which tells
 * the publisher which entry, not a refused upload. The file is this module's to close
 * (autoClose off), so it is closed exactly when the check ends, whatever yauzl found.
 */
const OPTIONS: Options = { lazyEntries: true, autoClose: false, validateEntrySizes: true, strictFileNames: false, decodeStrings: false };

/** Stored and deflated: what every zip tool writes by default, and what the archive checks can read (docs/api-rules.md §10). */
const CHECKABLE_METHODS = new Set([0, 8]);

/**
 * An entry the checks could not read would install unchecked: encrypted, or
 * compressed another way (bzip2, LZMA, which Python's zipfile, the
 * installers' reader, would still extract). Refused at upload.
 */
function assertCheckable(entry: Entry): void {
  if (entry.isEncrypted()) throw new NotAZipError('the archive holds an encrypted entry, which cannot be checked');
  if (!CHECKABLE_METHODS.has(entry.compressionMethod)) {
    throw new NotAZipError(`the archive holds an entry compressed with method ${entry.compressionMethod}; only stored and deflated entries (methods 0 and 8) can be checked`);
  }
}

/**
 * The local header must name the entry as the central directory does, and say
 * the same compression: the checks read names from the central directory, and
 * Python's zipfile (the installers' reader) refuses an entry whose two names
 * differ, so a file that passed its checks could still not be installed.
 */
function assertConsistent(entry: Entry, local: LocalFileHeader): void {
  if (!local.fileName.equals(entry.fileNameRaw)) {
    throw new NotAZipError(`the archive is not a readable zip file: an entry's local header names it differently from the central directory`);
  }
  if (local.compressionMethod !== entry.compressionMethod) {
    throw new NotAZipError(`the archive is not a readable zip file: an entry's local header gives another compression method than the central directory`);
  }
}

function readZip(fd: number): Promise<ZipFile> {
  return new Promise((resolve, reject) => fromFd(fd, OPTIONS, (error, zipfile) => (error ? reject(error) : resolve(zipfile))));
}

/** The next entry of the central directory, or undefined after the last. */
function nextEntry(zipfile: ZipFile): Promise<Entry | undefined> {
  return new Promise((resolve, reject) => {
    const settle = () => zipfile.off('entry', onEntry).off('end', onEnd).off('error', onError);
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
    zipfile.on('entry', onEntry).on('end', onEnd).on('error', onError);
    zipfile.readEntry();
  });
}

/**
 * Refuses, with NotAZipError, a file that a zip reader (yauzl) cannot read, so that
 * no archive gets a downloadUrl that no installer can open (starting with a zip
 * signature proves nothing): the end-of-central-directory record must be found and
 * point at a central directory holding as many well-formed entries as it counts, and
 * each entry's local header must be where the central directory says, with its
 * signature, the entry's name and compression method, and be followed by the entry's
 * compressed size of file data within the file. These are the checks yauzl makes
 * before it would stream an entry, and the name Python's zipfile compares; no file
 * data is read or decompressed. A file that cannot be opened or read at all rejects
 * with that error (the server's fault, not the upload's).
 */
export async function assertReadableZip(path: string): Promise<void> {
  const file = await open(path, 'r');
  try {
    const zipfile = await readZip(file.fd);
    for (let entry = await nextEntry(zipfile); entry; entry = await nextEntry(zipfile)) {
      assertCheckable(entry);
      assertConsistent(entry, await zipfile.readLocalFileHeaderPromise(entry));
    }
  } catch (error) {
    // EMFILE, EIO: the server's fault. yauzl's own errors name no system call. Ours already say what is wrong.
    if (error instanceof NotAZipError || (error as NodeJS.ErrnoException).syscall !== undefined) throw error;
    throw new NotAZipError(`the archive is not a readable zip file: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await file.close();
  }
}
