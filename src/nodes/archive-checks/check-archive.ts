import { open } from 'node:fs/promises';
import { fromFdPromise, ZipFile } from 'yauzl';
import { pythonParser } from '../comfy-nodes/extraction/python-parser';
import { isIoError, ZIP_OPTIONS } from '../comfy-nodes/extraction/python-sources';
import { checkContents } from './contents';
import { FindingList, WHOLE_ARCHIVE } from './finding-list';
import { Finding, finding } from './findings';
import { checkHeaders } from './headers';

export { FINDING_CODES, SEVERITY_OF, summarizeFindings } from './findings';
export type { Finding, FindingCode, FindingSeverity } from './findings';

/**
 * The checks of a node-pack archive (CONTRACT §10), all but `no-node-classes` (the caller adds that
 * one from the extraction), in two passes over the zip, never writing anything to disk:
 * 1. the central directory alone (checkHeaders): unsafe-path, zip-bomb, not-a-pack. A zip bomb by
 *    its entry count or its size in all ends the checks there: nothing is inflated;
 * 2. the entries' contents (checkContents), each entry streamed once, one at a time: credentials,
 *    native-binary, obfuscated-exec, version-mismatch.
 * Memory stays bounded whatever the archive: a few chunks, a line window, and a Python module or a
 * pyproject.toml of at most 1 MiB at a time; findings in archive order, at most LISTED_PER_CODE of
 * each code, then one counting the others.
 *
 * Never rejects for the archive's content (one that is not a readable zip is a not-a-pack finding);
 * rejects only on I/O errors of the file.
 */
export async function checkArchive(zipPath: string, options: { version: string }): Promise<Finding[]> {
  const parser = await pythonParser();
  const findings = new FindingList();
  const file = await open(zipPath, 'r');
  // yauzl walks a central directory once: each pass opens the archive anew (reading its end record again).
  const zip = (): Promise<ZipFile> => fromFdPromise(file.fd, ZIP_OPTIONS);
  try {
    const { readContents, pyproject } = await checkHeaders(await zip(), findings);
    if (readContents) await checkContents(await zip(), { parser, version: options.version, pyproject, findings });
  } catch (error) {
    if (isIoError(error)) throw error;
    findings.add(WHOLE_ARCHIVE, finding('not-a-pack', `the archive is not a readable zip file: ${error instanceof Error ? error.message : String(error)}`));
  } finally {
    await file.close();
  }
  return findings.findings();
}
