import { constants, crc32, deflateRawSync } from 'node:zlib';
import { fields } from './zip';

/**
 * Zips that makeZip (./zip.ts) does not make, for the archive checks: deflated entries, symbolic
 * links, Unix modes, raw names, other compression methods, and headers that lie about sizes.
 */
export interface CraftedEntry {
  /** Its name; a Buffer is written as is (a NUL in it, say), a string as UTF-8 (flag bit 11). */
  name: string | Buffer;
  /** What it inflates to. */
  content?: string | Buffer;
  /** Deflate `content` (method 8); else it is stored. */
  deflate?: boolean;
  /** Data already deflated (deflatedFill), with what it inflates to: `content` is then left out. */
  deflated?: Deflated;
  /** The uncompressed size the headers declare, when not the real one. */
  declaredSize?: number;
  /** A Unix mode (0o120777 for a symbolic link): written with "made by" Unix, in the external attributes. */
  unixMode?: number;
  /** The compression method the headers name, when not the one used (14, LZMA, for data left as is). */
  method?: number;
  /** An extra field (an Info-ZIP Unicode path field, say). */
  extra?: Buffer;
}

export interface Deflated {
  data: Buffer;
  size: number;
  crc: number;
}

const MiB = 1024 * 1024;
const UNIX = 3;
const UTF8_NAMES = 0x0800;

/**
 * `size` bytes (a multiple of 1 MiB) all `fill` (zeros by default: binary), deflated without ever
 * holding them: one MiB deflated with a full flush (byte-aligned, referring to nothing before it),
 * repeated, then an empty final block. Deflate's best ratio is about 1030:1: 1 GiB takes about 1 MB.
 */
export function deflatedFill(size: number, fill = 0): Deflated {
  const mebibyte = Buffer.alloc(MiB, fill);
  const segment = deflateRawSync(mebibyte, { finishFlush: constants.Z_FULL_FLUSH });
  const segments: Buffer[] = [];
  let crc = 0;
  for (let done = 0; done < size; done += MiB) {
    segments.push(segment);
    crc = crc32(mebibyte, crc);
  }
  return { data: Buffer.concat([...segments, deflateRawSync(Buffer.alloc(0))]), size, crc };
}

function entryData({ content = '', deflate, deflated }: CraftedEntry): Deflated & { method: number } {
  if (deflated !== undefined) return { ...deflated, method: 8 };
  const bytes = Buffer.from(content);
  return { data: deflate ? deflateRawSync(bytes) : bytes, size: bytes.length, crc: crc32(bytes), method: deflate ? 8 : 0 };
}

/** A zip of `entries`, laid out as makeZip lays its entries (local headers and data, central directory, end record). */
export function craftZip(entries: CraftedEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.isBuffer(entry.name) ? entry.name : Buffer.from(entry.name);
    const extra = entry.extra ?? Buffer.alloc(0);
    const { data, size, crc, method } = entryData(entry);
    const flags = Buffer.isBuffer(entry.name) ? 0 : UTF8_NAMES;
    // version 2.0, flags, method, time 00:00, date 1980-01-01, crc, sizes, name and extra field lengths
    const common = fields([2, 20], [2, flags], [2, entry.method ?? method], [2, 0], [2, 0x21], [4, crc], [4, data.length], [4, entry.declaredSize ?? size], [2, name.length], [2, extra.length]);
    locals.push(fields([4, 0x04034b50]), common, name, extra, data);
    const madeBy = entry.unixMode === undefined ? 20 : (UNIX << 8) | 20;
    const attributes = entry.unixMode === undefined ? 0 : (entry.unixMode << 16) >>> 0;
    // made by, the same fields, no comment, disk 0, internal and external attributes, where the local header starts
    centrals.push(fields([4, 0x02014b50], [2, madeBy]), common, fields([2, 0], [2, 0], [2, 0], [4, attributes], [4, offset]), name, extra);
    offset += 30 + name.length + extra.length + data.length;
  }
  const central = Buffer.concat(centrals);
  const end = fields([4, 0x06054b50], [2, 0], [2, 0], [2, entries.length], [2, entries.length], [4, central.length], [4, offset], [2, 0]);
  return Buffer.concat([...locals, central, end]);
}

/** An Info-ZIP Unicode path extra field (0x7075) giving `path` for an entry whose header name is `headerName`. */
export function unicodePathField(headerName: string, path: string): Buffer {
  const data = Buffer.concat([Buffer.from([1]), fields([4, crc32(Buffer.from(headerName))]), Buffer.from(path)]);
  return Buffer.concat([fields([2, 0x7075], [2, data.length]), data]);
}
