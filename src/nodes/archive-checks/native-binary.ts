import { Finding, finding, quote } from './findings';

const ELF = 0x7f454c46; // "\x7fELF"
/** 32- and 64-bit Mach-O, in either byte order. */
const MACH_O = new Set([0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe]);
/** Mach-O universal ("fat") binaries, 32- and 64-bit tables; 0xcafebabe also starts Java class files. */
const FAT = new Set([0xcafebabe, 0xcafebabf]);
/**
 * A universal binary's next field counts its architectures (a handful); a Java class file's holds its
 * minor and major version, the major 45 or more, so as a 32-bit number it is at least 45 (libmagic
 * tells them apart the same way).
 */
const MIN_JAVA_CLASS_VERSION = 45;
const MZ = 0x4d5a; // "MZ", the DOS header a PE file starts with
const PE_OFFSET_FIELD = 0x3c; // e_lfanew: where the "PE\0\0" signature is
const PE = 0x50450000;

/**
 * What native binary an entry is, from its first bytes (entry-content.ts's SNIFF_BYTES or more), if it is one. A PE file
 * counts only when its "PE\0\0" signature is where its DOS header points, within those bytes (it is
 * in the first few hundred in practice), so that a text file starting with "MZ" is not one; a bare
 * DOS program (no PE header) is not a binary of today's systems. Java class files are not native.
 */
export function nativeBinaryKind(head: Buffer): string | undefined {
  if (head.length < 8) return undefined;
  const magic = head.readUInt32BE(0);
  if (magic === ELF) return 'an ELF binary (Linux)';
  if (MACH_O.has(magic)) return 'a Mach-O binary (macOS)';
  if (FAT.has(magic) && head.readUInt32BE(4) > 0 && head.readUInt32BE(4) < MIN_JAVA_CLASS_VERSION) return 'a Mach-O universal binary (macOS)';
  if (head.readUInt16BE(0) !== MZ || head.length < PE_OFFSET_FIELD + 4) return undefined;
  const pe = head.readUInt32LE(PE_OFFSET_FIELD);
  return pe + 4 <= head.length && head.readUInt32BE(pe) === PE ? 'a PE binary (Windows)' : undefined;
}

export function nativeBinary(head: Buffer, file: string): Finding | undefined {
  const kind = nativeBinaryKind(head);
  return kind === undefined ? undefined : finding('native-binary', `${quote(file)} is ${kind}`, file);
}
