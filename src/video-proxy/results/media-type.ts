/** Bytes media-type sniffing needs from the start of a file. */
export const SNIFF_BYTES = 16;

const startsWith = (head: Buffer, bytes: number[], at = 0): boolean => bytes.every((byte, i) => head[at + i] === byte);
const ascii = (head: Buffer, start: number, end: number): string => head.subarray(start, end).toString('latin1');

/**
 * The media type of a kept result, from its first bytes, never from what the
 * upstream said: mp4 and QuickTime (ISO base media `ftyp` box, brand `qt  `
 * for QuickTime), WebM (EBML), PNG, JPEG, WebP; anything else is
 * application/octet-stream.
 */
export function sniffMediaType(head: Buffer): string {
  if (ascii(head, 4, 8) === 'ftyp') return ascii(head, 8, 12) === 'qt  ' ? 'video/quicktime' : 'video/mp4';
  // A QuickTime file may start with another top-level atom than ftyp.
  if (['moov', 'mdat', 'wide', 'free'].includes(ascii(head, 4, 8))) return 'video/quicktime';
  if (startsWith(head, [0x1a, 0x45, 0xdf, 0xa3])) return 'video/webm';
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(head, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 12) === 'WEBP') return 'image/webp';
  return 'application/octet-stream';
}
