import { Readable } from 'node:stream';
import { Entry, ZipFile } from 'yauzl';
import { BlockReader, LineBlocks } from './text-blocks';

/** How much of an entry is read to tell text from binary (a NUL in it, as git and grep tell), and a native binary by its header. */
const SNIFF_BYTES = 8 * 1024;

export type EntryContent =
  /** Its first bytes (SNIFF_BYTES or more, or all of it), NUL among them: reading stopped there. */
  | { binary: true; head: Buffer }
  /** Its bytes, when asked to keep them. */
  | { binary: false; kept?: Buffer };

const isBinary = (head: Buffer): boolean => head.subarray(0, SNIFF_BYTES).includes(0);

/**
 * Reads an entry once, as it inflates, holding little of it: its first SNIFF_BYTES tell binary (a NUL
 * among them) from text; a binary entry is read no further; a text entry's blocks of lines go to
 * `read` (LineBlocks), and its bytes are kept too when `keep` (for an entry whose declared size is
 * small: yauzl stops one that inflates past it). Rejects as the stream does (corrupt data, an entry
 * inflating past its declared size, the file's I/O).
 */
export async function readEntry(zipfile: ZipFile, entry: Entry, read: BlockReader, keep: boolean): Promise<EntryContent> {
  const stream: Readable = await zipfile.openReadStreamPromise(entry);
  const lines = new LineBlocks(read);
  const kept: Buffer[] = [];
  // The first chunks, until SNIFF_BYTES have come; then undefined (the entry is text).
  let head: Buffer[] | undefined = [];
  let headBytes = 0;
  /** The head, when it tells a binary entry; a text entry's head goes on to the lines. */
  const binaryHead = (): Buffer | undefined => {
    const bytes = Buffer.concat(head ?? []);
    head = undefined;
    if (isBinary(bytes)) return bytes;
    lines.push(bytes);
    return undefined;
  };
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (keep) kept.push(chunk);
    if (head === undefined) {
      lines.push(chunk);
      continue;
    }
    head.push(chunk);
    headBytes += chunk.length;
    const binary = headBytes < SNIFF_BYTES ? undefined : binaryHead();
    // Leaving the loop destroys the stream: nothing more is read or inflated.
    if (binary !== undefined) return { binary: true, head: binary };
  }
  // An entry shorter than SNIFF_BYTES.
  const binary = head === undefined ? undefined : binaryHead();
  if (binary !== undefined) return { binary: true, head: binary };
  lines.end();
  return keep ? { binary: false, kept: Buffer.concat(kept) } : { binary: false };
}
