import { readFile } from 'node:fs/promises';
import { Language, Node, Parser } from 'web-tree-sitter';

export interface PythonParser {
  /**
   * Parses `source` and hands its syntax tree to `read`, synchronously, so one parser serves
   * every caller; the tree is freed when `read` returns (WebAssembly memory is not collected).
   * Throws NotParsed for a source indented too deeply (see MAX_INDENT_COLUMNS), or that takes
   * longer than `budgetMs` (PARSE_BUDGET_MS unless a caller, such as a test on a loaded machine, says).
   */
  parse<T>(source: string, read: (root: Node) => T, budgetMs?: number): T;
}

/** A source the parser leaves unparsed; the message says why. */
export class NotParsed extends Error {}

/**
 * How long one parse may hold the event loop (other requests wait meanwhile). A module's outline
 * parses in 0.03 s per MiB here; a whole 1 MiB module in 0.2 to 0.4 s, garbage or 400,000 nested
 * brackets in 1 to 2 s: those are noted as not parsed (for the checks: not checked, an admin looks).
 */
export const PARSE_BUDGET_MS = 150;

/**
 * tree-sitter-python's scanner keeps a stack of the indentations of the blocks open and copies it
 * into a 1 KiB buffer when the parser saves its state: past about 510 nested blocks it writes out of
 * bounds, and the WebAssembly instance, shared by every later parse, fails from then on. (Python
 * itself refuses more than 100.) A block opens only on a line indented more than the line that
 * opened the block around it, so 500 nested blocks need a line indented by 500 columns or more, as
 * the scanner counts them: a tab is 8, and a backslash-newline carries the count to the next line.
 * A source with such a line is not parsed (nor, to keep the check simple, one with a line of a string
 * or within brackets indented that far: no hand-written code has one).
 */
export const MAX_INDENT_COLUMNS = 500;

function indentedTooDeeply(source: string): boolean {
  let columns = 0;
  let indenting = true; // after a line break, before the line's first token
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\n' || c === '\r') {
      columns = 0;
      indenting = true;
    } else if (!indenting) {
      continue;
    } else if (c === ' ' || c === '\t') {
      columns += c === ' ' ? 1 : 8;
    } else if (c === '\f') {
      columns = 0;
    } else if (c === '\\' && source.startsWith('\n', i + 1)) {
      i += 1;
    } else if (c === '\\' && source.startsWith('\r\n', i + 1)) {
      i += 2;
    } else if (columns >= MAX_INDENT_COLUMNS) {
      return true;
    } else {
      indenting = false;
    }
  }
  return false;
}

/**
 * The tree-sitter runtime and its Python grammar, both WebAssembly shipped inside their npm packages
 * (nothing is compiled or downloaded). Located with require.resolve so that the same code finds them
 * from src/ (ts-jest) and from dist/ (nest build). The grammar's bytes are read here rather than by
 * Language.load, whose path loading uses a dynamic import() that Jest's module sandbox refuses.
 */
async function load(): Promise<PythonParser> {
  await Parser.init({ locateFile: () => require.resolve('web-tree-sitter/web-tree-sitter.wasm') });
  const language = await Language.load(await readFile(require.resolve('tree-sitter-python/tree-sitter-python.wasm')));
  const parser = new Parser();
  parser.setLanguage(language);
  return {
    parse(source, read, budgetMs = PARSE_BUDGET_MS) {
      if (indentedTooDeeply(source)) throw new NotParsed(`a line indented ${MAX_INDENT_COLUMNS} columns or more`);
      const deadline = performance.now() + budgetMs;
      // The callback cancels the parse by returning true (ParseOptions types it as returning void).
      const tree = parser.parse(source, null, { progressCallback: () => performance.now() > deadline });
      if (tree === null) {
        parser.reset(); // or the next parse would resume this one
        throw new NotParsed(`parsing took over ${budgetMs} ms`);
      }
      try {
        return read(tree.rootNode);
      } finally {
        tree.delete();
      }
    },
  };
}

let loading: Promise<PythonParser> | undefined;

/** The Python parser, loaded on first use; a failed load (a missing .wasm) is tried again next time. */
export function pythonParser(): Promise<PythonParser> {
  loading ??= load().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}
