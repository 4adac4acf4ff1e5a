import { PythonParser, pythonParser } from '../comfy-nodes/extraction/python-parser';
import { ExecWords, mayHoldExec, obfuscatedExecFindings } from './obfuscated-exec';

let parser: PythonParser;
beforeAll(async () => {
  parser = await pythonParser();
});

/** A budget no loaded CI machine exhausts on these small modules: the service's own is for hostile ones. */
const TEST_BUDGET_MS = 10_000;

/** The lines obfuscatedExecFindings reports in `source`, with what runs what. */
function found(source: string): [line: number | undefined, message: string][] {
  return obfuscatedExecFindings(parser, 'loader.py', source, TEST_BUDGET_MS).map(({ line, message }) => [line, message.replace('"loader.py" ', '')]);
}

describe('obfuscatedExecFindings', () => {
  it('finds exec, eval and compile of decoded data, following imports, aliases and method chains', () => {
    const source = [
      'import base64, zlib, marshal, builtins', // 1
      'from base64 import b64decode as unhide', // 2
      'import codecs as c', // 3
      '', // 4
      'exec(base64.b64decode("cHJpbnQoMSk="))', // 5
      'eval(zlib.decompress(unhide(PAYLOAD)).decode("utf-8"))', // 6
      'builtins.exec(marshal.loads(DATA))', // 7
      'exec(compile(bytes.fromhex(HEX), "<x>", "exec"))', // 8
      'exec(c.decode(S, "rot13"))', // 9
      'exec(__import__("zlib").decompress(Z))', // 10
      'compile(source=str(base64.a85decode(A), "utf-8"), filename="x", mode="exec")', // 11
      '__builtins__.eval(b"".join([]) + base64.urlsafe_b64decode(U))', // 12
    ].join('\n');
    expect(found(source)).toEqual([
      [5, 'line 5 runs exec() on what base64.b64decode() decodes'],
      [6, 'line 6 runs eval() on what zlib.decompress() decodes'],
      [7, 'line 7 runs builtins.exec() on what marshal.loads() decodes'],
      [8, 'line 8 runs compile() on what bytes.fromhex() decodes'],
      [9, 'line 9 runs exec() on what codecs.decode() decodes'],
      [10, 'line 10 runs exec() on what zlib.decompress() decodes'],
      [11, 'line 11 runs compile() on what base64.a85decode() decodes'],
      [12, 'line 12 runs builtins.eval() on what base64.urlsafe_b64decode() decodes'],
    ]);
  });

  it('follows names assigned decoded data, in any scope, through further assignments', () => {
    const source = [
      'from zlib import *', // 1
      'import base64 as b', // 2
      'def load(blob):', // 3
      '    raw = decompress(blob)', // 4
      '    text = raw.decode()', // 5
      '    exec(text)', // 6
      'exec((code := b.b32decode(X)))', // 7
      'first = second = b.b16decode(Y)', // 8
      'eval(first)', // 9
    ].join('\n');
    expect(found(source).map(([line]) => line)).toEqual([6, 7, 9]);
  });

  it('follows names assigned a decoder, a sink or their module, and getattr with a literal name', () => {
    const source = [
      'import base64, builtins', // 1
      'f = base64.b64decode', // 2
      'exec(f("cHJpbnQoMSk="))', // 3
      'exec(getattr(base64, "b64decode")(S))', // 4
      'getattr(builtins, "exec")(base64.b64decode(S))', // 5
      'run = getattr(__builtins__, "eval")', // 6
      'mod = base64', // 7
      'run(mod.b85decode(S))', // 8
      'g = f', // 9
      'compile(g(S), "x", "exec")', // 10
      'other = len', // 11
      'exec(other(S))', // 12
      'run2 = f2 = base64.b32decode', // 13
      'exec(run2(S))', // 14
    ].join('\n');
    expect(found(source)).toEqual([
      [3, 'line 3 runs exec() on what base64.b64decode() decodes'],
      [4, 'line 4 runs exec() on what base64.b64decode() decodes'],
      [5, 'line 5 runs builtins.exec() on what base64.b64decode() decodes'],
      [8, 'line 8 runs builtins.eval() on what base64.b85decode() decodes'],
      [10, 'line 10 runs compile() on what base64.b64decode() decodes'],
      [14, 'line 14 runs exec() on what base64.b32decode() decodes'],
    ]);
  });

  it('reads identifiers NFKC-normalized, as Python does', () => {
    expect(found('import base64\nｅｘｅｃ(base64.b64decode(s))\n')).toEqual([[2, 'line 2 runs exec() on what base64.b64decode() decodes']]);
  });

  it('leaves out what is not code run from decoded data', () => {
    const source = [
      'import base64, re, zlib',
      'from re import compile',
      'PATTERN = re.compile(base64.b64decode(P))', // re.compile, not the builtin
      'other = compile(base64.b64decode(P))', // compile bound by the import from re
      'model.eval(zlib.decompress(state))', // a method named eval
      'exec(base64.b64encode(s))', // encoding, not decoding
      'exec(source)', // not decoded
      'exec(base64.b64decode)', // the function itself, not its result
      'data = base64.b64decode(s)',
      'print(data)',
    ].join('\n');
    expect(found(source)).toEqual([]);
  });

  it('follows deep brackets and long method chains without recursing', () => {
    const brackets = `import base64\nexec(${'('.repeat(150)}base64.b64decode(s)${')'.repeat(150)})\n`;
    const chain = `import base64\nexec(base64.b64decode(s)${'.strip()'.repeat(5000)})\n`;
    expect(found(brackets).map(([line]) => line)).toEqual([2]);
    expect(found(chain).map(([line]) => line)).toEqual([2]);
  });

  it('reports a module the parser refuses as not checked', () => {
    const deep = `import base64\nexec(base64.b64decode(s))\n${'    '.repeat(130)}x = 1\n`;
    expect(obfuscatedExecFindings(parser, 'deep.py', deep)).toEqual([
      {
        code: 'obfuscated-exec',
        severity: 'review',
        message: '"deep.py" was not checked for code run from decoded data (a line indented 500 columns or more)',
        file: 'deep.py',
      },
    ]);
  });
});

describe('mayHoldExec', () => {
  it('needs both a sink name and a decoder module in the source', () => {
    expect(mayHoldExec('import base64\nexec(base64.b64decode(s))')).toBe(true);
    expect(mayHoldExec('model.eval()\nPATTERN = re.compile(r"x")')).toBe(false);
    expect(mayHoldExec('import base64\nprint(base64.b64encode(b"x"))')).toBe(false);
    // Fullwidth letters spell exec and base64 once normalized.
    expect(mayHoldExec('import ｂａｓｅ64\nｅｘｅｃ(ｂａｓｅ64.b64decode(s))')).toBe(true);
  });

  it('is told by ExecWords, block by block, answering true for any text other than ASCII', () => {
    const words = new ExecWords();
    words.read('import zlib\n');
    expect(words.mayHoldExec).toBe(false);
    words.read('eval(x)\n');
    expect(words.mayHoldExec).toBe(true);
    const other = new ExecWords();
    other.read('# caf\u00e9\n');
    expect(other.mayHoldExec).toBe(true);
  });
});
