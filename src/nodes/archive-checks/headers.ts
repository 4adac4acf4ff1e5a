import { ZipFile } from 'yauzl';
import { checkedName, unsafePath } from './entry-paths';
import { FindingList, WHOLE_ARCHIVE } from './finding-list';
import { PackLayout } from './pack-layout';
import { compressedTooWell, tooLargeInAll, tooManyEntries } from './zip-bomb';

export interface HeaderFacts {
  /** False when the archive's contents are not to be read: a zip bomb by its entry count or its size in all. */
  readContents: boolean;
  /** The path of the pack's pyproject.toml, if it has one. */
  pyproject?: string;
}

/**
 * The checks that need only the central directory, read entry by entry without inflating anything:
 * unsafe-path, zip-bomb (the entry count first, from the end record, then each entry's ratio and the
 * sizes in all) and not-a-pack. Rejects when the central directory cannot be read.
 */
export async function checkHeaders(zipfile: ZipFile, findings: FindingList): Promise<HeaderFacts> {
  const tooMany = tooManyEntries(zipfile.entryCount);
  if (tooMany !== undefined) {
    findings.add(WHOLE_ARCHIVE, tooMany);
    return { readContents: false };
  }
  const layout = new PackLayout();
  let totalBytes = 0;
  let index = 0;
  for await (const entry of zipfile.eachEntry()) {
    const name = checkedName(entry);
    for (const found of [unsafePath(entry, name), compressedTooWell(entry, name)]) if (found !== undefined) findings.add(index, found);
    layout.add(name);
    totalBytes += entry.uncompressedSize;
    index += 1;
  }
  const notAPack = layout.notAPack();
  if (notAPack !== undefined) findings.add(WHOLE_ARCHIVE, notAPack);
  const tooLarge = tooLargeInAll(totalBytes);
  if (tooLarge !== undefined) findings.add(WHOLE_ARCHIVE, tooLarge);
  return { readContents: tooLarge === undefined, pyproject: layout.pyproject() };
}
