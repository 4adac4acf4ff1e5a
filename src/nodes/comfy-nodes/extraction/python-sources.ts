import { open } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { Entry, fromFdPromise, getFileNameLowLevel, Options, validateFileName, ZipFile } from 'yauzl';
import type { ExtractionLimits } from './extract-node-classes';
import { Notes } from './notes';

export interface PythonSource {
  /** The file's path in the archive. */
  name: string;
  text: string;
}

/**
 * As src/archives/zip-reader.ts reads archives, except that names are decoded and checked here,
 * entry by entry (see entryName), so that an unsafe name skips its entry instead of ending the whole
 * reading. Shared with the archive checks (src/nodes/archive-checks), which read archives the same way.
 */
export const ZIP_OPTIONS: Options = { lazyEntries: true, autoClose: false, validateEntrySizes: true, strictFileNames: false, decodeStrings: false };

/** Folders whose .py files are not the pack's modules: bytecode caches, and macOS's resource forks (binary `._x.py`). */
const IGNORED_FOLDERS = new Set(['__pycache__', '__MACOSX']);

// UTF-8, Python's default source encoding; a leading BOM is dropped.
const decoder = new TextDecoder();

/** Errors of reading the file itself name a system call; yauzl's and zlib's (a malformed archive) do not. */
export const isIoError = (error: unknown): boolean => error instanceof Error && (error as NodeJS.ErrnoException).syscall !== undefined;
const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * The entry's path as yauzl would decode it with ZIP_OPTIONS: UTF-8 or CP437 as its flag says (or its
 * Info-ZIP Unicode path field), backslashes turned into slashes; not yet checked (validateFileName).
 */
export const entryName = (entry: Entry): string => getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, false);

/** The entry's path when it is a .py file to read; an unsafe one (absolute, or climbing out with `..`) is noted. */
function pythonPath(entry: Entry, notes: Notes): string | undefined {
  const name = entryName(entry);
  if (!name.endsWith('.py') || name.split('/').some((part) => IGNORED_FOLDERS.has(part))) return undefined;
  if (validateFileName(name) === null) return name;
  notes.add('unsafe names, not read', name);
  return undefined;
}

/** Why the limits leave the entry unread, if they do; sizes are the central directory's, which yauzl holds entries to. */
function overLimit(entry: Entry, limits: ExtractionLimits, files: number, bytes: number): string | undefined {
  if (files >= limits.maxFiles) return `over ${limits.maxFiles} .py files`;
  if (entry.uncompressedSize > limits.maxFileBytes) return `over ${limits.maxFileBytes} bytes`;
  if (bytes + entry.uncompressedSize > limits.maxTotalBytes) return `over ${limits.maxTotalBytes} bytes of Python in all`;
  return undefined;
}

/** An entry's bytes, in memory; the stream is abandoned (destroyed by the loop's exit) past `maxBytes`. */
async function readEntry(zipfile: ZipFile, entry: Entry, maxBytes: number): Promise<Buffer> {
  const stream: Readable = await zipfile.openReadStreamPromise(entry);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    // yauzl already fails an entry that inflates past its declared size (validateEntrySizes); this bounds memory regardless.
    if (size > maxBytes) throw new Error(`more than ${maxBytes} bytes once inflated`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * The archive's .py files, one at a time in archive order, read into memory only (nothing is written
 * to disk), within `limits`. What is not read, and why, goes to `notes`: entries over a limit,
 * entries that cannot be read (encrypted, unsupported compression, corrupt data), and an archive
 * that is not a readable zip at all or past some entry. Rejects only when the file itself cannot be read.
 */
export async function* pythonSources(zipPath: string, limits: ExtractionLimits, notes: Notes): AsyncGenerator<PythonSource> {
  const file = await open(zipPath, 'r');
  try {
    const zipfile = await fromFdPromise(file.fd, ZIP_OPTIONS);
    let files = 0;
    let bytes = 0;
    for await (const entry of zipfile.eachEntry()) {
      const name = pythonPath(entry, notes);
      if (name === undefined) continue;
      const limit = overLimit(entry, limits, files, bytes);
      if (limit !== undefined) {
        notes.add(`not read (${limit})`, name);
        continue;
      }
      let data: Buffer;
      try {
        data = await readEntry(zipfile, entry, limits.maxFileBytes);
      } catch (error) {
        if (isIoError(error)) throw error;
        notes.add('not readable', `${name} (${message(error)})`);
        continue;
      }
      files += 1;
      bytes += data.length;
      yield { name, text: decoder.decode(data) };
    }
  } catch (error) {
    if (isIoError(error)) throw error;
    notes.add('the archive is not a readable zip file', message(error));
  } finally {
    await file.close();
  }
}
