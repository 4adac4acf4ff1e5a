import { readFile } from 'node:fs/promises';
import { Language, Node, Parser } from 'web-tree-sitter';

export interface PythonParser {
  /**
   * Parses `source` and hands its syntax tree to `read`, synchronously, so one parser serves
   * every caller; the tree is freed when `read` returns (WebAssembly memory is not collected).
   */
  parse<T>(source: string, read: (root: Node) => T): T;
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
    parse(source, read) {
      const tree = parser.parse(source);
      // Only without a language, or when cancelled by a progress callback: neither can happen here.
      if (tree === null) throw new Error('tree-sitter returned no tree');
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
