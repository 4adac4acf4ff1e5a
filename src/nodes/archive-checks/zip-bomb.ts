import { Entry } from 'yauzl';
import { Finding, finding, quote } from './findings';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

/** CONTRACT §10's zip-bomb thresholds, all read from the central directory before anything is inflated. */
const ZIP_BOMB_LIMITS = Object.freeze({
  maxEntries: 20_000,
  maxTotalBytes: GiB,
  /** An entry is a bomb when compressed more than maxRatio:1 and inflating to more than ratioFromBytes. */
  maxRatio: 200,
  ratioFromBytes: 10 * MiB,
});

/** `bytes` in GiB (3 decimals at most), MiB (1) or bytes: "1 GiB", "1.001 GiB", "16 MiB", "16325 bytes". */
function size(bytes: number): string {
  if (bytes >= GiB) return `${+(bytes / GiB).toFixed(3)} GiB`;
  if (bytes >= MiB) return `${+(bytes / MiB).toFixed(1)} MiB`;
  return `${bytes} bytes`;
}

export function tooManyEntries(entryCount: number): Finding | undefined {
  if (entryCount <= ZIP_BOMB_LIMITS.maxEntries) return undefined;
  return finding('zip-bomb', `the archive has ${entryCount} entries, over ${ZIP_BOMB_LIMITS.maxEntries}`);
}

export function tooLargeInAll(totalBytes: number): Finding | undefined {
  if (totalBytes <= ZIP_BOMB_LIMITS.maxTotalBytes) return undefined;
  return finding('zip-bomb', `the archive inflates to ${size(totalBytes)} in all (${totalBytes} bytes), over ${size(ZIP_BOMB_LIMITS.maxTotalBytes)}`);
}

/** The finding for an entry compressed too well, by its central-directory sizes (which yauzl holds its inflating to). */
export function compressedTooWell(entry: Entry, name: string): Finding | undefined {
  const { compressedSize, uncompressedSize } = entry;
  if (uncompressedSize <= ZIP_BOMB_LIMITS.ratioFromBytes || uncompressedSize <= compressedSize * ZIP_BOMB_LIMITS.maxRatio) return undefined;
  const ratio = compressedSize === 0 ? 'from nothing' : `${Math.floor(uncompressedSize / compressedSize)}:1`;
  return finding(
    'zip-bomb',
    `${quote(name)} inflates to ${size(uncompressedSize)} from ${size(compressedSize)} (${ratio}; over ${ZIP_BOMB_LIMITS.maxRatio}:1 and ${size(ZIP_BOMB_LIMITS.ratioFromBytes)})`,
    name,
  );
}

/**
 * Whether reading an entry failed because it inflated past the size its header declares: yauzl's
 * validateEntrySizes stops the stream there, with this message (yauzl 3's AssertByteCountStream).
 */
export const inflatedPastDeclaredSize = (error: unknown): boolean => error instanceof Error && error.message.startsWith('too many bytes in the stream');

export function pastDeclaredSize(entry: Entry, name: string): Finding {
  return finding('zip-bomb', `${quote(name)} inflates to more than the ${size(entry.uncompressedSize)} its header declares`, name);
}
