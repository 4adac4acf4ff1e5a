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
export function fields(...values: [width: 2 | 4, value: number][]): Buffer {
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

/** `zip` with `edit` applied to a copy of its bytes. */
function edited(zip: Buffer, edit: (bytes: Buffer) => void): Buffer {
  const bytes = Buffer.from(zip);
  edit(bytes);
  return bytes;
}

/**
 * Uploads that start with a zip signature but that no zip reader can read, by what is wrong with
 * them: the end-of-central-directory record (EOCD, the last 22 bytes of makeZip's zips), the central
 * directory it points at, or a local header the central directory points at.
 */
export function unreadableZips(): Record<string, Buffer> {
  const zip = makeZip({ 'node/__init__.py': 'NODE_CLASS_MAPPINGS = {}\n' });
  const eocd = zip.length - 22;
  const centralDirectory = zip.readUInt32LE(eocd + 16);
  return {
    'a local-header signature alone': Buffer.from('PK\x03\x04', 'latin1'),
    'a local-header signature followed by garbage': Buffer.concat([Buffer.from('PK\x03\x04', 'latin1'), Buffer.from('this is not a zip file, only its first four bytes are'.repeat(4))]),
    'a zip cut short (no EOCD record)': zip.subarray(0, zip.length - 1),
    'an EOCD record whose central-directory offset is wrong': edited(zip, (bytes) => bytes.writeUInt32LE(centralDirectory + 1, eocd + 16)),
    'an EOCD record that counts more entries than the central directory holds': edited(zip, (bytes) => {
      bytes.writeUInt16LE(2, eocd + 8);
      bytes.writeUInt16LE(2, eocd + 10);
    }),
    'a local header whose file-name length is 65535': edited(zip, (bytes) => bytes.writeUInt16LE(0xffff, 26)),
    // The local header is 30 bytes and the name; the file data after it is text, not a local header.
    'a central-directory entry whose local-header offset points at garbage': edited(zip, (bytes) =>
      bytes.writeUInt32LE(30 + 'node/__init__.py'.length, centralDirectory + 42),
    ),
  };
}

/**
 * Zips whose local header disagrees with the central directory: a reader that goes by the central
 * directory alone reads on, Python's zipfile (the installers') refuses the entry, and so does the upload.
 */
export function inconsistentZips(): Record<string, Buffer> {
  const zip = makeZip({ 'node/__init__.py': 'NODE_CLASS_MAPPINGS = {}\n' });
  return {
    // Python's zipfile: "File name in directory 'node/__init__.py' and header b'node/__init__.pyNOD' differ".
    'a local header whose file-name length is 3 more than the central directory’s': edited(zip, (bytes) => bytes.writeUInt16LE(bytes.readUInt16LE(26) + 3, 26)),
    'a local header naming the entry differently': edited(zip, (bytes) => bytes.write('m', 30, 'latin1')),
    'a local header giving another compression method': edited(zip, (bytes) => bytes.writeUInt16LE(8, 8)),
  };
}

/** Every upload refused as no readable zip: unreadableZips and inconsistentZips. */
export function refusedZips(): Record<string, Buffer> {
  return { ...unreadableZips(), ...inconsistentZips() };
}
