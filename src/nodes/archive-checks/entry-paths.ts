import { Entry, getFileNameLowLevel } from 'yauzl';
import { entryName } from '../comfy-nodes/extraction/python-sources';
import { Finding, finding, quote } from './findings';

/** A name cut at its first NUL, as Python's zipfile cuts it: `x.py\0.txt` is the x.py an installer writes (and findings hold no NUL). */
function cutAtNul(name: string): string {
  const nul = name.indexOf('\0');
  return nul < 0 ? name : name.slice(0, nul);
}

/** The entry's path, as the checks name it: as yauzl decodes it (backslashes turned into slashes), cut at a NUL. */
export const checkedName = (entry: Entry): string => cutAtNul(entryName(entry));

export const isDirectory = (name: string): boolean => name.endsWith('/');

/** Hosts ("version made by", high byte) whose external attributes hold a Unix mode: Unix, and OS X. */
const UNIX_HOSTS = new Set([3, 19]);
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

/** Whether the entry is a symbolic link (its content is the path it points to), as unzip would create it. */
export function isSymlink(entry: Entry): boolean {
  return UNIX_HOSTS.has(entry.versionMadeBy >>> 8) && ((entry.externalFileAttributes >>> 16) & S_IFMT) === S_IFLNK;
}

/** Why a path (slashes only) would be written outside the folder it is extracted to, if it would. */
function unsafeBecause(name: string): string | undefined {
  if (/^[a-zA-Z]:/.test(name)) return 'starts with a drive letter';
  if (name.startsWith('/')) return 'is an absolute path';
  if (name.split('/').includes('..')) return 'has a ".." segment';
  return undefined;
}

/**
 * The unsafe-path finding for an entry, if any: a symbolic link, or a path that is absolute, has a
 * drive letter or a `..` segment, backslashes counting as separators. Both the path yauzl reads (an
 * Info-ZIP Unicode path field wins) and the header's own name are checked, since installers differ
 * on which they use.
 */
export function unsafePath(entry: Entry, name: string): Finding | undefined {
  if (isSymlink(entry)) return finding('unsafe-path', `${quote(name)} is a symbolic link`, name);
  const headerName = cutAtNul(getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, [], false));
  for (const path of new Set([name, headerName])) {
    const because = unsafeBecause(path);
    if (because !== undefined) return finding('unsafe-path', `${quote(path)} ${because}`, path);
  }
  return undefined;
}
