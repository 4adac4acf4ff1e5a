import { posix } from 'node:path';
import { unstorableText } from '../../../common/validation/storable-text';
import { ClassAttributes, ClassReference, ModuleFacts, readModuleFacts } from './module-facts';
import { Notes } from './notes';
import { NotParsed, PythonParser, pythonParser } from './python-parser';
import { pythonSources } from './python-sources';

export interface ExtractedNodeClass {
  /** The NODE_CLASS_MAPPINGS key. */
  name: string;
  category?: string;
  /** From NODE_DISPLAY_NAME_MAPPINGS[name] when it is a literal string. */
  description?: string;
  function?: string;
  returnTypes?: string[];
  returnNames?: string[];
  outputIsList?: boolean[];
  deprecated?: boolean;
  experimental?: boolean;
}

export interface ExtractionResult {
  status: 'success' | 'failed';
  /** Sorted by name, unique names. May be non-empty with status 'success' only. */
  classes: ExtractedNodeClass[];
  /** One line, human readable: why it failed, or (on success) what was skipped, e.g. "syntax errors, read in part: a.py line 3; not read (over 1048576 bytes): b.py". Absent when nothing to say. */
  reason?: string;
}

export interface ExtractionLimits {
  maxFileBytes: number;
  maxTotalBytes: number;
  maxFiles: number;
}

/**
 * What one archive's extraction reads at most, so that a huge or hostile upload costs bounded memory
 * and time:
 * - 1 MiB per .py file: hand-written node modules are tens of KiB, the largest single-file packs
 *   several hundred; bigger files are generated code or embedded data. Parsing one file holds the
 *   event loop: 0.03 s for 1 MiB here, 0.2 to 0.4 s at worst (parsed whole, see outline.ts);
 * - 32 MiB of Python in all, and 2,000 .py files: room for packs that vendor whole libraries.
 */
export const DEFAULT_EXTRACTION_LIMITS: ExtractionLimits = Object.freeze({ maxFileBytes: 1024 * 1024, maxTotalBytes: 32 * 1024 * 1024, maxFiles: 2000 });

/**
 * How long one extraction may run: 32 MiB of ordinary Python takes about 1.5 s here, but Python made
 * to be slow to parse takes up to PARSE_BUDGET_MS a file. Files reached later are noted, not parsed.
 */
const EXTRACTION_BUDGET_MS = 10_000;

/** What ComfyUI would show for the node `name`: its class's attributes, titled by its display name if it has one. */
function nodeClass(name: string, attributes: ClassAttributes = {}, displayName?: string): ExtractedNodeClass {
  const { description, ...rest } = attributes;
  const shown = displayName ?? description;
  return shown === undefined ? { name, ...rest } : { name, ...rest, description: shown };
}

const hasUnstorableText = (value: unknown): boolean =>
  typeof value === 'string' ? unstorableText(value) !== undefined : Array.isArray(value) && value.some(hasUnstorableText);

/**
 * The class as the database can store it (see unstorableText): none when its
 * name holds a NUL or an unpaired surrogate (Python's `\x00`, `\ud800`
 * escapes), else without the attributes that do, each noted.
 */
function storable(nodeClass: ExtractedNodeClass, notes: Notes): ExtractedNodeClass[] {
  if (hasUnstorableText(nodeClass.name)) {
    // JSON spelling: the note is stored too, so it must not hold the character either.
    notes.add('names with a NUL or an unpaired surrogate, skipped', JSON.stringify(nodeClass.name));
    return [];
  }
  const { name, ...attributes } = nodeClass;
  const kept: ExtractedNodeClass = { name };
  for (const [attribute, value] of Object.entries(attributes)) {
    if (hasUnstorableText(value)) notes.add('attributes with a NUL or an unpaired surrogate, left out', `${name} ${attribute}`);
    else Object.assign(kept, { [attribute]: value });
  }
  return [kept];
}

/** The classes a pack defines, by file and by name. */
class PackClasses {
  private readonly byFile = new Map<string, Map<string, ClassAttributes>>();
  private readonly firstByName = new Map<string, ClassAttributes>();

  add(file: string, classes: ModuleFacts['classes']): void {
    const own = new Map<string, ClassAttributes>();
    for (const [className, attributes] of classes) {
      if (!own.has(className)) own.set(className, attributes);
      if (!this.firstByName.has(className)) this.firstByName.set(className, attributes);
    }
    this.byFile.set(file, own);
  }

  /** The class `reference` names from the module `file`: see extractNodeClasses. */
  find(reference: ClassReference, file: string): ClassAttributes | undefined {
    const modules = reference.from === undefined ? [file] : modulePaths(reference.from, file);
    for (const module of modules) {
      const attributes = this.byFile.get(module)?.get(reference.name);
      if (attributes) return attributes;
    }
    return this.firstByName.get(reference.name);
  }
}

/**
 * The files a relative import in `file` can load: `.a.b` in `p/__init__.py` is `p/a/b.py` or
 * `p/a/b/__init__.py`; each further leading dot is a package up. None for an absolute import (the
 * pack's own package name is whatever folder it is installed in).
 */
function modulePaths(from: string, file: string): string[] {
  const dots = /^\.*/.exec(from)?.[0].length ?? 0;
  if (dots === 0) return [];
  const rest = from.slice(dots).split('.').filter(Boolean);
  const base = posix.join(posix.dirname(file), ...Array<string>(dots - 1).fill('..'), ...rest);
  return rest.length === 0 ? [posix.join(base, '__init__.py')] : [`${base}.py`, posix.join(base, '__init__.py')];
}

/** The module's facts, noting what of it could not be read; undefined when it was not parsed. */
function readNoting(parser: PythonParser, name: string, text: string, notes: Notes): ModuleFacts | undefined {
  let facts: ModuleFacts;
  try {
    facts = readModuleFacts(parser, text);
  } catch (error) {
    if (!(error instanceof NotParsed)) throw error;
    notes.add(`not parsed (${error.message})`, name);
    return undefined;
  }
  if (facts.syntaxErrorLine !== undefined) notes.add('syntax errors, read in part', `${name} line ${facts.syntaxErrorLine}`);
  for (const { mapping, line } of facts.nonLiteral) notes.add(`${mapping} entries not literal, skipped`, `${name} line ${line}`);
  return facts;
}

/**
 * The node classes a ComfyUI pack's zip declares, read from its Python sources with tree-sitter,
 * across all its .py files (packs map names in __init__.py to classes defined in other modules).
 * A mapping key assigned twice keeps its last value, as in Python. A mapped class is looked for in
 * the module it was imported from (a relative import), or in the mapping's own module; found in
 * neither (an absolute import, a re-export), it is the first class of that name in archive order.
 *
 * Never rejects because of the archive's content: an unreadable zip, bad Python, limits crossed -> a
 * result (status 'failed' when no class found). Rejects only on I/O errors of the file itself.
 */
export async function extractNodeClasses(zipPath: string, limits: Partial<ExtractionLimits> = {}): Promise<ExtractionResult> {
  const parser = await pythonParser();
  const within: ExtractionLimits = {
    maxFileBytes: limits.maxFileBytes ?? DEFAULT_EXTRACTION_LIMITS.maxFileBytes,
    maxTotalBytes: limits.maxTotalBytes ?? DEFAULT_EXTRACTION_LIMITS.maxTotalBytes,
    maxFiles: limits.maxFiles ?? DEFAULT_EXTRACTION_LIMITS.maxFiles,
  };
  const deadline = performance.now() + EXTRACTION_BUDGET_MS;
  const notes = new Notes();
  const mappings = new Map<string, { reference?: ClassReference; file: string }>();
  const displayNames = new Map<string, string>();
  const classes = new PackClasses();
  let files = 0;
  for await (const { name, text } of pythonSources(zipPath, within, notes)) {
    files += 1;
    // Parsing is synchronous: before each file, let the rest of the service run.
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (performance.now() > deadline) {
      notes.add(`not parsed (over ${EXTRACTION_BUDGET_MS / 1000} s in all)`, name);
      continue;
    }
    const facts = readNoting(parser, name, text, notes);
    if (facts === undefined) continue;
    for (const [key, reference] of facts.classMappings) mappings.set(key, { reference, file: name });
    for (const [key, displayName] of facts.displayNames) displayNames.set(key, displayName);
    classes.add(name, facts.classes);
  }
  const found = [...mappings.keys()].sort().flatMap((name) => {
    const { reference, file } = mappings.get(name) ?? { file: '' };
    return storable(nodeClass(name, reference === undefined ? undefined : classes.find(reference, file), displayNames.get(name)), notes);
  });
  if (found.length === 0) {
    const why = files === 0 ? 'no .py file read' : 'no NODE_CLASS_MAPPINGS with literal keys found';
    return { status: 'failed', classes: [], reason: [why, ...notes.phrases()].join('; ') };
  }
  const skipped = notes.phrases();
  return skipped.length === 0 ? { status: 'success', classes: found } : { status: 'success', classes: found, reason: skipped.join('; ') };
}
