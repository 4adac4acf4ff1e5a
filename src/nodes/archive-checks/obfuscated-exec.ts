import { Node } from 'web-tree-sitter';
import { stringLiteral } from '../comfy-nodes/extraction/python-literals';
import { NotParsed, PARSE_BUDGET_MS, PythonParser } from '../comfy-nodes/extraction/python-parser';
import { Finding, finding, quote } from './findings';

/** What runs code given as text or bytes: `exec`, `eval`, `compile`, also through the builtins module. */
const SINKS = new Set(['exec', 'eval', 'compile'].flatMap((name) => [name, `builtins.${name}`]));

/** What turns hidden text back into code: CONTRACT §10's base64, zlib, marshal and codecs decoding, and bytes.fromhex. */
const DECODERS = new Set([
  ...['b64decode', 'standard_b64decode', 'urlsafe_b64decode', 'b32decode', 'b32hexdecode', 'b16decode', 'b85decode', 'a85decode', 'z85decode', 'decodebytes', 'decodestring'].map(
    (name) => `base64.${name}`,
  ),
  'zlib.decompress',
  'marshal.loads',
  'codecs.decode',
  'bytes.fromhex',
  'bytearray.fromhex',
]);

/** What a chained assignment's value is: `b64decode` in `a = b = base64.b64decode`, or `(f := base64.b64decode)`. Read without recursion. */
function assignedValue(value: Node): Node {
  let node = value;
  for (let read = 0; read < MAX_NODES_READ; read++) {
    const inner =
      node.type === 'assignment' ? node.childForFieldName('right') : node.type === 'named_expression' ? node.childForFieldName('value') : node.type === 'parenthesized_expression' ? node.firstNamedChild : null;
    if (inner === null) return node;
    node = inner;
  }
  return node;
}

/** The dotted names an assignment may make another name stand for: decoders and sinks, and so their modules. */
const NAMES_FOLLOWED = [...DECODERS, ...SINKS];

/** Builtins whose result holds what their first argument decoded: `str(b64decode(s), "utf-8")`. */
const WRAPPERS = new Set(['str', 'bytes', 'bytearray']);

/** How many nodes of one expression are followed, looking for a decoder's call in it. */
const MAX_NODES_READ = 10_000;

/**
 * How long following one module's names and expressions may hold the event loop, as long as its
 * parse may: ordinary modules take a few milliseconds, but one can be made of long chains to follow.
 */
const READING_BUDGET_MS = PARSE_BUDGET_MS;

/** How many times assignments are read again for names assigned from names assigned a decoded value. */
const MAX_ASSIGNMENT_ROUNDS = 8;

/**
 * Words a module's text holds if the parse below can find anything in it: a sink's name, and a
 * decoder's module (named by an import, an attribute or `__import__("…")`) or `fromhex`.
 */
const SINK_WORDS = ['exec', 'eval', 'compile'];
const DECODER_WORDS = ['base64', 'zlib', 'marshal', 'codecs', 'fromhex'];
// eslint-disable-next-line no-control-regex -- the complement of ASCII
const NON_ASCII = /[^\u0000-\u007f]/;

const holds = (text: string, words: string[]): boolean => words.some((word) => text.includes(word));

/**
 * Whether `source` may hold an obfuscated exec, to skip parsing the many modules that cannot: true
 * unless it lacks the words one needs. Python reads identifiers NFKC-normalized (`ｅｘｅｃ` is
 * `exec`), so a source with other than ASCII is normalized first.
 */
export function mayHoldExec(source: string): boolean {
  const text = NON_ASCII.test(source) ? source.normalize('NFKC') : source;
  return holds(text, SINK_WORDS) && holds(text, DECODER_WORDS);
}

/**
 * mayHoldExec for a module too large to keep whole, read in blocks of lines (LineBlocks: an identifier
 * is never cut across two): not knowing how other than ASCII would normalize, it answers true for any.
 */
export class ExecWords {
  private sink = false;
  private decoder = false;
  private nonAscii = false;

  read(block: string): void {
    this.sink ||= holds(block, SINK_WORDS);
    this.decoder ||= holds(block, DECODER_WORDS);
    this.nonAscii ||= NON_ASCII.test(block);
  }

  get mayHoldExec(): boolean {
    return this.nonAscii || (this.sink && this.decoder);
  }
}

interface ObfuscatedExec {
  line: number;
  /** The sink called, as written once imports are resolved: `exec`, `builtins.eval`. */
  sink: string;
  /** The decoder whose result it is given: `base64.b64decode`. */
  decoder: string;
}

const identifier = (node: Node): string => node.text.normalize('NFKC');
const dottedName = (node: Node): string => node.namedChildren.filter((part) => part.type === 'identifier').map(identifier).join('.');

/**
 * The names one module binds that matter here, read from its syntax tree (all scopes alike, which
 * can only add findings for an admin to review): what its imports bind names to, and which names it
 * assigns a decoded value.
 */
class ModuleNames {
  /** A name → the dotted name it stands for: `b` → `base64` after `import base64 as b`. */
  private readonly aliases = new Map<string, string>([['__builtins__', 'builtins']]);
  /** A name → the decoder whose result it was assigned. */
  private readonly decoded = new Map<string, string>();
  private readonly deadline: number;

  constructor(
    root: Node,
    private readonly budgetMs: number,
  ) {
    this.deadline = performance.now() + budgetMs;
    for (const statement of root.descendantsOfType(['import_statement', 'import_from_statement'])) this.readImport(statement);
    this.readAssignments(root.descendantsOfType(['assignment', 'augmented_assignment', 'named_expression']));
  }

  /** Throws NotParsed once reading the module has taken its budget. */
  checkTime(): void {
    if (performance.now() > this.deadline) throw new NotParsed(`following its names and calls took over ${this.budgetMs} ms`);
  }

  private readImport(statement: Node): void {
    const moduleName = statement.childForFieldName('module_name');
    if (statement.type === 'import_from_statement' && moduleName?.type !== 'dotted_name') return; // a relative import
    const from = moduleName === null ? '' : `${dottedName(moduleName)}.`;
    for (const name of statement.childrenForFieldName('name')) {
      const imported = name.type === 'aliased_import' ? name.childForFieldName('name') : name;
      const alias = name.type === 'aliased_import' ? name.childForFieldName('alias') : null;
      if (imported === null) continue;
      // `import a.b` binds `a`, which stands for itself; `import a.b as c`, `from a import b [as c]` bind other names.
      if (alias !== null) this.aliases.set(identifier(alias), from + dottedName(imported));
      else if (from !== '') this.aliases.set(dottedName(imported), from + dottedName(imported));
    }
    if (moduleName !== null && statement.namedChildren.some((child) => child.type === 'wildcard_import')) {
      for (const qualified of [...DECODERS, ...SINKS]) {
        if (qualified.startsWith(from)) this.aliases.set(qualified.slice(from.length), qualified);
      }
    }
  }

  /**
   * Names assigned a decoded value, and names assigned a decoder, a sink or their module (`f =
   * base64.b64decode`, `run = getattr(builtins, "exec")`), which then stand for it as an import's do.
   */
  private readAssignments(assignments: Node[]): void {
    for (let round = 0, changed = true; changed && round < MAX_ASSIGNMENT_ROUNDS; round++) {
      changed = false;
      for (const assignment of assignments) {
        const target = assignment.childForFieldName(assignment.type === 'named_expression' ? 'name' : 'left');
        const value = assignment.childForFieldName(assignment.type === 'named_expression' ? 'value' : 'right');
        if (target?.type !== 'identifier' || value === null) continue;
        const name = identifier(target);
        const stands = this.aliases.has(name) ? undefined : this.qualifiedName(assignedValue(value));
        if (stands !== undefined && stands !== name && NAMES_FOLLOWED.some((followed) => followed === stands || followed.startsWith(`${stands}.`))) {
          this.aliases.set(name, stands);
          changed = true;
          continue;
        }
        if (this.decoded.has(name)) continue;
        const decoder = this.decoderOf(value);
        if (decoder === undefined) continue;
        this.decoded.set(name, decoder);
        changed = true;
      }
    }
  }

  /**
   * The dotted name an expression stands for once imports are resolved (`b.b64decode` →
   * `base64.b64decode`, `__import__("zlib").decompress` → `zlib.decompress`), if it is one. Read
   * without recursion: an attribute chain can be as long as the module.
   */
  qualifiedName(node: Node): string | undefined {
    const attributes: string[] = [];
    let base: Node | null = node;
    while (base?.type === 'attribute' || base?.type === 'parenthesized_expression') {
      if (base.type === 'parenthesized_expression') {
        base = base.firstNamedChild;
        continue;
      }
      const attribute = base.childForFieldName('attribute');
      if (attribute === null) return undefined;
      attributes.push(identifier(attribute));
      base = base.childForFieldName('object');
    }
    const head = base?.type === 'identifier' ? this.resolve(base) : base?.type === 'call' ? this.calledName(base) : undefined;
    return head === undefined ? undefined : [head, ...attributes.reverse()].join('.');
  }

  private resolve(name: Node): string {
    return this.aliases.get(identifier(name)) ?? identifier(name);
  }

  /**
   * The dotted name a call returns, when its names are literals: the module `__import__("m")` or
   * `importlib.import_module("m")` imports, or the attribute `getattr(base64, "b64decode")` reads.
   */
  private calledName(call: Node): string | undefined {
    const callee = call.childForFieldName('function');
    // Only a name or a name's attribute is resolved here, so a chain of calls is not followed down.
    const named = callee?.type === 'identifier' || (callee?.type === 'attribute' && callee.childForFieldName('object')?.type === 'identifier');
    const name = named && callee !== null ? this.qualifiedName(callee) : undefined;
    const [first, second] = call.childForFieldName('arguments')?.namedChildren ?? [];
    if (name === '__import__' || name === 'importlib.import_module') return stringLiteral(first ?? null);
    if (name !== 'getattr' || first === undefined || second === undefined || first.type !== 'identifier') return undefined;
    const attribute = stringLiteral(second);
    return attribute === undefined ? undefined : `${this.resolve(first)}.${attribute}`;
  }

  /**
   * The decoder whose result an expression's value holds, if any: a decoder's call, a name assigned
   * one, or an expression passing one on (brackets, an assignment's value, `+`, a method of it such as
   * `.decode()`, str() or bytes() of it). Read without recursion, at most MAX_NODES_READ nodes.
   */
  decoderOf(expression: Node): string | undefined {
    const pending: Node[] = [expression];
    for (let read = 0; pending.length > 0 && read < MAX_NODES_READ; read++) {
      this.checkTime();
      const node = pending.pop() as Node;
      const next = (child: Node | null | undefined) => {
        if (child !== null && child !== undefined) pending.push(child);
      };
      if (node.type === 'identifier') {
        const decoder = this.decoded.get(identifier(node));
        if (decoder !== undefined) return decoder;
      } else if (node.type === 'parenthesized_expression') {
        next(node.firstNamedChild);
      } else if (node.type === 'assignment') {
        next(node.childForFieldName('right')); // `a = b = b64decode(s)`
      } else if (node.type === 'named_expression') {
        next(node.childForFieldName('value'));
      } else if (node.type === 'binary_operator') {
        next(node.childForFieldName('right'));
        next(node.childForFieldName('left'));
      } else if (node.type === 'call') {
        const callee = node.childForFieldName('function');
        const name = callee === null ? undefined : this.qualifiedName(callee);
        if (name !== undefined && DECODERS.has(name)) return name;
        if (callee?.type === 'attribute') next(callee.childForFieldName('object'));
        else if (name !== undefined && WRAPPERS.has(name)) next(node.childForFieldName('arguments')?.firstNamedChild);
      }
    }
    return undefined;
  }
}

/** An argument's value: a keyword argument's (`source=…`), or the argument itself. */
const argumentValue = (argument: Node): Node | null => (argument.type === 'keyword_argument' ? argument.childForFieldName('value') : argument);

/**
 * The calls of a Python module that run what a decoder returns: `exec(b64decode(s))`,
 * `eval(zlib.decompress(base64.b64decode(s)).decode())`, `builtins.exec(code)` after `code =
 * marshal.loads(data)`, with imports followed (`from base64 import b64decode as d`,
 * `__import__("zlib")`). One per line, in source order. Throws NotParsed as the parser does, and
 * when following the module's names and calls takes over READING_BUDGET_MS.
 */
function obfuscatedExecs(parser: PythonParser, source: string, budgetMs: number): ObfuscatedExec[] {
  return parser.parse(source, (root) => {
    const names = new ModuleNames(root, budgetMs);
    const found = new Map<number, ObfuscatedExec>();
    for (const call of root.descendantsOfType('call')) {
      names.checkTime();
      const callee = call.childForFieldName('function');
      const sink = callee === null ? undefined : names.qualifiedName(callee);
      if (sink === undefined || !SINKS.has(sink)) continue;
      const line = call.startPosition.row + 1;
      for (const argument of call.childForFieldName('arguments')?.namedChildren ?? []) {
        const value = argumentValue(argument);
        const decoder = value === null ? undefined : names.decoderOf(value);
        if (decoder !== undefined && !found.has(line)) found.set(line, { line, sink, decoder });
      }
    }
    return [...found.values()].sort((a, b) => a.line - b.line);
  }, budgetMs);
}

/** The obfuscated-exec finding for a module that may hold one but could not be checked (`why`): hiding code from the check is what it is for. */
export function notChecked(file: string, why: string): Finding {
  return finding('obfuscated-exec', `${quote(file)} was not checked for code run from decoded data (${why})`, file);
}

/** The obfuscated-exec findings of a Python module `file`; one not parsed, or whose reading takes too long (NotParsed), is one not checked. */
export function obfuscatedExecFindings(parser: PythonParser, file: string, source: string, budgetMs = READING_BUDGET_MS): Finding[] {
  try {
    return obfuscatedExecs(parser, source, budgetMs).map(({ line, sink, decoder }) =>
      finding('obfuscated-exec', `${quote(file)} line ${line} runs ${sink}() on what ${decoder}() decodes`, file, line),
    );
  } catch (error) {
    if (!(error instanceof NotParsed)) throw error;
    return [notChecked(file, error.message)];
  }
}
