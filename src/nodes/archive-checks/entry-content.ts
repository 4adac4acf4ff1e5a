import { Readable } from 'node:stream';
import { TextDecoder } from 'node:util';
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
 * The encoding of a UTF-16 text (which holds NULs, so it would pass for binary): told by its
 * byte-order mark, or without one by ASCII characters' zero byte in every other place.
 */
function utf16Of(head: Buffer): 'utf-16le' | 'utf-16be' | undefined {
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  const units = Math.floor(Math.min(head.length, SNIFF_BYTES) / 2);
  if (units === 0) return undefined;
  const zeroAt = (parity: number) => {
    for (let unit = 0; unit < units; unit += 1) {
      if (head[2 * unit + parity] !== 0 || head[2 * unit + 1 - parity] === 0) return false;
    }
    return true;
  };
  if (zeroAt(1)) return 'utf-16le';
  if (zeroAt(0)) return 'utf-16be';
  return undefined;
}

/**
 * Reads an entry once, as it inflates, holding little of it: its first SNIFF_BYTES tell binary (a NUL
 * among them, unless they are UTF-16 text) from text; a binary entry is read no further; a text entry's blocks of lines go to
 * `read` (LineBlocks), and its bytes are kept too when `keep` (for an entry whose declared size is
 * small: yauzl stops one that inflates past it). Rejects as the stream does (corrupt data, an entry
 * inflating past its declared size, the file's I/O).
 */
export async function readEntry(zipfile: ZipFile, entry: Entry, read: BlockReader, keep: boolean): Promise<EntryContent> {
  const stream: Readable = await zipfile.openReadStreamPromise(entry);
  const lines = new LineBlocks(read);
  // Set for a UTF-16 text: its lines are read as UTF-8, so the checks' ASCII patterns match in it.
  let decoder: TextDecoder | undefined;
  const toLines = (bytes: Buffer) => lines.push(decoder ? Buffer.from(decoder.decode(bytes, { stream: true })) : bytes);
  const kept: Buffer[] = [];
  // The first chunks, until SNIFF_BYTES have come; then undefined (the entry is text).
  let head: Buffer[] | undefined = [];
  let headBytes = 0;
  /** The head, when it tells a binary entry; a text entry's head goes on to the lines. */
  const binaryHead = (): Buffer | undefined => {
    const bytes = Buffer.concat(head ?? []);
    head = undefined;
    const utf16 = utf16Of(bytes);
    if (utf16) decoder = new TextDecoder(utf16);
    else if (isBinary(bytes)) return bytes;
    toLines(bytes);
    return undefined;
  };
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (keep) kept.push(chunk);
    if (head === undefined) {
      toLines(chunk);
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
  if (decoder) lines.push(Buffer.from(decoder.decode()));
  lines.end();
  return keep ? { binary: false, kept: Buffer.concat(kept) } : { binary: false };
}
