import { sniffMediaType } from './media-type';

const box = (type: string, brand: string) => Buffer.concat([Buffer.from([0, 0, 0, 0x20]), Buffer.from(type + brand, 'latin1')]);

describe('sniffMediaType', () => {
  it.each([
    [box('ftyp', 'isom'), 'video/mp4'],
    [box('ftyp', 'mp42'), 'video/mp4'],
    [box('ftyp', 'qt  '), 'video/quicktime'],
    [box('moov', ''), 'video/quicktime'],
    [Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f]), 'video/webm'],
    [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]), 'image/png'],
    [Buffer.from([0xff, 0xd8, 0xff, 0xe0]), 'image/jpeg'],
    [Buffer.from('RIFF\x10\x00\x00\x00WEBPVP8 ', 'latin1'), 'image/webp'],
    [Buffer.from('RIFF\x10\x00\x00\x00WAVEfmt ', 'latin1'), 'application/octet-stream'],
    [Buffer.from('<html>'), 'application/octet-stream'],
    [Buffer.alloc(0), 'application/octet-stream'],
  ])('%#: %s', (head, type) => {
    expect(sniffMediaType(head)).toBe(type);
  });
});
