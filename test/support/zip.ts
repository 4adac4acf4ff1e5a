const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** Little-endian fields of the given byte widths. */
function fields(...values: [width: 2 | 4, value: number][]): Buffer {
  const out = Buffer.alloc(values.reduce((sum, [width]) => sum + width, 0));
  let offset = 0;
  for (const [width, value] of values) offset = width === 2 ? out.writeUInt16LE(value, offset) : out.writeUInt32LE(value, offset);
  return out;
}

/**
 * A valid zip of `files` (name → UTF-8 text), stored uncompressed: per file a
 * local header and its bytes, then the central directory and its end record
 * (PKWARE APPNOTE 4.3). `unzip -t` and every zip reader accept it; with no
 * files it is the 22-byte empty archive.
 */
export function makeZip(files: Record<string, string>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, text] of Object.entries(files)) {
    const nameBytes = Buffer.from(name);
    const data = Buffer.from(text);
    // version 2.0, UTF-8 names (bit 11), stored, time 00:00, date 1980-01-01, crc, sizes, name length, no extra field
    const common = fields([2, 20], [2, 0x0800], [2, 0], [2, 0], [2, 0x21], [4, crc32(data)], [4, data.length], [4, data.length], [2, nameBytes.length], [2, 0]);
    locals.push(fields([4, 0x04034b50]), common, nameBytes, data);
    // made by 2.0, then the same fields, no comment, disk 0, no attributes, where the local header starts
    centrals.push(fields([4, 0x02014b50], [2, 20]), common, fields([2, 0], [2, 0], [2, 0], [4, 0], [4, offset]), nameBytes);
    offset += 30 + nameBytes.length + data.length;
  }
  const central = Buffer.concat(centrals);
  const count = Object.keys(files).length;
  const end = fields([4, 0x06054b50], [2, 0], [2, 0], [2, count], [2, count], [4, central.length], [4, offset], [2, 0]);
  return Buffer.concat([...locals, central, end]);
}
