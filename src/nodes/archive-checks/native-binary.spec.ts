import { nativeBinaryKind } from './native-binary';

/** `bytes` (hex) at the start of 4 KiB of zeros. */
const head = (hex: string): Buffer => Buffer.concat([Buffer.from(hex.replace(/ /g, ''), 'hex'), Buffer.alloc(4096)]);

/** A PE file's start: "MZ", e_lfanew (at 0x3c) = `peAt`, and "PE\0\0" there when `signed`. */
function pe(peAt: number, signed = true): Buffer {
  const bytes = Buffer.alloc(8192);
  bytes.write('MZ', 0, 'latin1');
  bytes.writeUInt32LE(peAt, 0x3c);
  if (signed && peAt + 4 <= bytes.length) bytes.write('PE\0\0', peAt, 'latin1');
  return bytes;
}

describe('nativeBinaryKind', () => {
  it('tells ELF, Mach-O (thin, fat) and PE binaries by their headers', () => {
    expect(nativeBinaryKind(head('7f454c46 02010100'))).toBe('an ELF binary (Linux)');
    expect(nativeBinaryKind(head('cffaedfe 0c000001'))).toBe('a Mach-O binary (macOS)');
    expect(nativeBinaryKind(head('feedface 00000007'))).toBe('a Mach-O binary (macOS)');
    expect(nativeBinaryKind(head('cafebabe 00000002'))).toBe('a Mach-O universal binary (macOS)');
    expect(nativeBinaryKind(pe(0x80))).toBe('a PE binary (Windows)');
  });

  it('leaves out Java classes, text starting with MZ, and DOS headers pointing nowhere', () => {
    expect(nativeBinaryKind(head('cafebabe 00000034'))).toBeUndefined(); // a Java 8 class file
    expect(nativeBinaryKind(Buffer.from('MZ is how this README starts, and nothing else.\n'.repeat(3)))).toBeUndefined();
    expect(nativeBinaryKind(pe(0x80, false))).toBeUndefined();
    expect(nativeBinaryKind(pe(0xffff_fff0))).toBeUndefined(); // past the bytes read
    expect(nativeBinaryKind(Buffer.from('7f454c', 'hex'))).toBeUndefined();
  });
});
