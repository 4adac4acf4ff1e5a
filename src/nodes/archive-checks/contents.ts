import { Entry, ZipFile } from 'yauzl';
import { DEFAULT_EXTRACTION_LIMITS } from '../comfy-nodes/extraction/extract-node-classes';
import { PythonParser } from '../comfy-nodes/extraction/python-parser';
import { isIoError } from '../comfy-nodes/extraction/python-sources';
import { SecretScan } from './credentials';
import { EntryContent, readEntry } from './entry-content';
import { checkedName, isDirectory, isSymlink } from './entry-paths';
import { Finding } from './findings';
import { FindingList } from './finding-list';
import { nativeBinary } from './native-binary';
import { ExecWords, mayHoldExec, notChecked, obfuscatedExecFindings } from './obfuscated-exec';
import { versionMismatch } from './pyproject';
import { compressedTooWell, inflatedPastDeclaredSize, pastDeclaredSize } from './zip-bomb';

/**
 * The largest Python module parsed, and pyproject.toml read, whole: the extraction's (§9.3), so the
 * checks never need more of the parser's memory (WebAssembly memory, never given back) than it does.
 */
const MAX_WHOLE_BYTES = DEFAULT_EXTRACTION_LIMITS.maxFileBytes;

/**
 * How long the checks of one archive may parse Python in all (only modules that may hold an
 * obfuscated exec are parsed, usually a few); a module reached later is reported not checked.
 */
const PARSING_BUDGET_MS = 10_000;

// UTF-8, the default source encoding of Python and TOML's only one; a leading BOM is dropped.
const utf8 = new TextDecoder();

export interface ContentChecks {
  parser: PythonParser;
  /** The version as published, for version-mismatch. */
  version: string;
  /** The pack's pyproject.toml (HeaderFacts). */
  pyproject?: string;
  findings: FindingList;
}

/** One archive's checks of contents, and the parsing time they have left. */
class ContentChecker {
  private parsingLeftMs = PARSING_BUDGET_MS;

  constructor(private readonly checks: ContentChecks) {}

  async check(zipfile: ZipFile, entry: Entry, index: number): Promise<void> {
    const name = checkedName(entry);
    // A link's content is the path it points to, and a bomb is not inflated: both are findings already.
    if (isDirectory(name) || isSymlink(entry) || compressedTooWell(entry, name) !== undefined) return;
    const add = (found: Finding) => this.checks.findings.add(index, found);
    const python = name.endsWith('.py');
    if (!entry.canDecodeFileData()) {
      // Python's zipfile reads bzip2 and LZMA entries too: a module yauzl cannot read is one not checked.
      if (python) add(notChecked(name, entry.isEncrypted() ? 'encrypted' : `compression method ${entry.compressionMethod} is not read`));
      return;
    }
    const isPyproject = name === this.checks.pyproject;
    const whole = entry.uncompressedSize <= MAX_WHOLE_BYTES;
    const secrets = new SecretScan(name, add);
    // Whether a module too large to keep whole may hold an obfuscated exec (a kept one is asked whole).
    const words = python && !whole ? new ExecWords() : undefined;
    let content: EntryContent;
    try {
      const read = (text: string, line: number) => {
        secrets.read(text, line);
        words?.read(text);
      };
      content = await readEntry(zipfile, entry, read, (python || isPyproject) && whole);
    } catch (error) {
      if (isIoError(error)) throw error;
      if (inflatedPastDeclaredSize(error)) add(pastDeclaredSize(entry, name));
      else if (python) add(notChecked(name, `not readable: ${error instanceof Error ? error.message : String(error)}`));
      return;
    }
    if (content.binary) {
      const native = nativeBinary(content.head, name);
      if (native !== undefined) add(native);
      return;
    }
    const text = content.kept === undefined ? undefined : utf8.decode(content.kept);
    if (isPyproject && text !== undefined) {
      const mismatch = versionMismatch(text, name, this.checks.version);
      if (mismatch !== undefined) add(mismatch);
    }
    if (python) this.checkPython(name, text, words).forEach(add);
  }

  private checkPython(name: string, source: string | undefined, words: ExecWords | undefined): Finding[] {
    if (source === undefined) return words?.mayHoldExec === true ? [notChecked(name, `over ${MAX_WHOLE_BYTES} bytes`)] : [];
    if (!mayHoldExec(source)) return [];
    if (this.parsingLeftMs <= 0) return [notChecked(name, `over ${PARSING_BUDGET_MS / 1000} s of parsing for the archive`)];
    const start = performance.now();
    try {
      return obfuscatedExecFindings(this.checks.parser, name, source);
    } finally {
      this.parsingLeftMs -= performance.now() - start;
    }
  }
}

/**
 * The checks that read entries' contents, each entry once, streamed, in archive order: credentials
 * in text files, native-binary, obfuscated-exec in Python modules, version-mismatch of the pack's
 * pyproject.toml, and zip-bomb for an entry that inflates past its declared size. Between entries the
 * rest of the service runs. Rejects when the file cannot be read, or the central directory.
 */
export async function checkContents(zipfile: ZipFile, checks: ContentChecks): Promise<void> {
  const checker = new ContentChecker(checks);
  let index = 0;
  for await (const entry of zipfile.eachEntry()) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    await checker.check(zipfile, entry, index);
    index += 1;
  }
}
