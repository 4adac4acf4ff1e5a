import { ModuleFacts, readModuleFacts } from './module-facts';
import { pythonParser } from './python-parser';

const facts = async (source: string): Promise<ModuleFacts> => readModuleFacts(await pythonParser(), source);
const classOf = async (body: string) => (await facts(`class Node:\n${body}`)).classes;

describe('readModuleFacts', () => {
  it('reads str literals as Python does: escapes, raw and u prefixes, implicit concatenation, triple quotes', async () => {
    const source = String.raw`NODE_DISPLAY_NAME_MAPPINGS = {
    "Tab": "a\tb\x41\u00e9\U0001F527\101\\",
    r"Raw\d": u"Unicode",
    'Joined': "Jo" 'in' # a comment between parts
        "ed",
    """Triple""": '''line \
continued''',
}
`;
    expect((await facts(source)).displayNames).toStrictEqual([
      ['Tab', 'a\tbAé🔧A\\'],
      ['Raw\\d', 'Unicode'],
      ['Joined', 'Joined'],
      ['Triple', 'line continued'],
    ]);
  });

  it('takes f-strings, bytes, names and expressions for what they are: not literal', async () => {
    const source = String.raw`NODE_DISPLAY_NAME_MAPPINGS = {
    f"F": "x",
    b"Bytes": "x",
    "FString": f"{x}",
    "Named": "\N{BULLET}",
    "Beyond": "\U00110000",
    "Sum": "a" + "b",
    "Name": TITLE,
}
`;
    expect(await facts(source)).toStrictEqual({
      classMappings: [],
      displayNames: [],
      classes: [],
      nonLiteral: [2, 3, 4, 5, 6, 7, 8].map((line) => ({ mapping: 'NODE_DISPLAY_NAME_MAPPINGS', line })),
    });
  });

  it('reads tuples and lists of literals, and ignores class attributes that are anything else', async () => {
    expect(
      await classOf(`    RETURN_TYPES = ("IMAGE",  # the picture
                    "MASK")
    RETURN_NAMES = ()
    OUTPUT_IS_LIST = [False, True]
    CATEGORY = PREFIX + "/image"
    FUNCTION = ("run")
    DEPRECATED = 1
`),
    ).toStrictEqual([['Node', { returnTypes: ['IMAGE', 'MASK'], returnNames: [], outputIsList: [false, true] }]]);
    expect(await classOf('    RETURN_TYPES = ("IMAGE")\n    RETURN_NAMES = ("a", NAME)\n    OUTPUT_IS_LIST = (True, 0)\n')).toStrictEqual([['Node', {}]]);
  });

  it('lets a later assignment in the class body win, as Python does, and reads annotated ones', async () => {
    expect(await classOf('    CATEGORY = "first"\n    CATEGORY: str = "second"\n    EXPERIMENTAL: bool = True\n')).toStrictEqual([
      ['Node', { category: 'second', experimental: true }],
    ]);
  });

  it('parses the whole module when its outline cannot be made, as with nested quotes in an f-string', async () => {
    const source = 'def key(d):\n    return f"{d["a"] + "["}"\n\nclass Node:\n    CATEGORY = "kept"\n';
    expect((await facts(source)).classes).toStrictEqual([['Node', { category: 'kept' }]]);
  });

  it('maps a class imported under an alias to its own name, also when imported in a try block', async () => {
    const source = [
      'from .impl import Thing as T, Other',
      'try:',
      '    from .more import Spare as S',
      'except ImportError:',
      '    pass',
      'NODE_CLASS_MAPPINGS = {"WithAlias": T, "Plain": Other, "Tried": S, "Dotted": impl.T}',
      // A name used before an import binds it names no class of that import.
      'NODE_CLASS_MAPPINGS["Early"] = L',
      'from .late import Late as L',
    ].join('\n');
    expect((await facts(source)).classMappings).toStrictEqual([
      ['WithAlias', { name: 'Thing', from: '.impl' }],
      ['Plain', { name: 'Other', from: '.impl' }],
      ['Tried', { name: 'Spare', from: '.more' }],
      // impl.T is the attribute T of impl (not imported here), not the alias.
      ['Dotted', { name: 'T' }],
      ['Early', { name: 'L' }],
    ]);
  });

  it('forgets an alias once its name is bound again, as Python does', async () => {
    const source = [
      'from .legacy import Loader as LegacyLoader',
      'class LegacyLoader(LegacyLoader):',
      '    CATEGORY = "deprecated"',
      'from .a import Foo as F',
      'from .b import F',
      'from .c import Bar as B',
      'B = make_node()',
      'from .d import Baz as Z',
      'import zed as Z',
      'NODE_CLASS_MAPPINGS = {"L": LegacyLoader, "X": F, "Y": B, "Z": Z}',
    ].join('\n');
    expect((await facts(source)).classMappings).toStrictEqual([
      ['L', { name: 'LegacyLoader' }],
      ['X', { name: 'F', from: '.b' }],
      ['Y', { name: 'B' }],
      ['Z', { name: 'Z' }],
    ]);
  });

  it('names the module a class or its module was imported from', async () => {
    const source = [
      'from . import nodes',
      'from .pkg import mod',
      'import tools.more as more',
      'from ..up import Far',
      'class Here:',
      '    pass',
      'NODE_CLASS_MAPPINGS = {"A": nodes.Foo, "B": mod.Bar, "C": more.Baz, "D": Far, "E": Here, "F": unknown.Qux}',
    ].join('\n');
    expect((await facts(source)).classMappings).toStrictEqual([
      ['A', { name: 'Foo', from: '.nodes' }],
      ['B', { name: 'Bar', from: '.pkg.mod' }],
      ['C', { name: 'Baz', from: 'tools.more' }],
      ['D', { name: 'Far', from: '..up' }],
      ['E', { name: 'Here' }],
      ['F', { name: 'Qux' }],
    ]);
  });

  it('reads the statements free of errors in a module with a syntax error, and gives its line', async () => {
    const source = 'class Before:\n    CATEGORY = "b"\n\nx = (1,\n\nclass After:\n    CATEGORY = "a"\n';
    expect(await facts(source)).toMatchObject({ syntaxErrorLine: 4, classes: [['Before', { category: 'b' }], ['After', { category: 'a' }]] });
  });
});
