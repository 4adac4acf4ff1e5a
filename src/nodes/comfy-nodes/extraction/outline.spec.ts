import { withoutFunctions } from './outline';

const lines = (...text: string[]) => text.map((line) => `${line}\n`).join('');

describe('withoutFunctions', () => {
  it('leaves each function, decorators and body, as `0` and its line breaks, and keeps the rest as it is', () => {
    const source = lines(
      'import torch',
      '',
      '@cache',
      'def helper(x,',
      '           y=(1, 2)):',
      '    """A docstring, with "quotes" and a def."""',
      '',
      '# a comment at column 0 in the body',
      '    return x',
      '',
      'class Node:',
      '    CATEGORY = "image"',
      '',
      '    @classmethod',
      '    def INPUT_TYPES(cls):',
      '        return {"required": {}}',
      '    RETURN_TYPES = ("IMAGE",)',
      '    async def run(self): return 1',
      'NODE_CLASS_MAPPINGS = {"Node": Node}',
    );
    expect(withoutFunctions(source)).toBe(
      lines(
        'import torch',
        '',
        '0',
        '',
        '',
        '',
        '',
        '',
        '',
        '',
        'class Node:',
        '    CATEGORY = "image"',
        '',
        '    0',
        '',
        '',
        '    RETURN_TYPES = ("IMAGE",)',
        '    0',
        'NODE_CLASS_MAPPINGS = {"Node": Node}',
      ),
    );
  });

  it('keeps decorated classes, and names that merely start with def or async', () => {
    const source = lines('@dataclass', 'class Options:', '    default = 1', 'defaults = {}', 'async_mode = True', 'define(1)');
    expect(withoutFunctions(source)).toBe(source);
  });

  it('ends a function where its indentation does, whatever its strings, brackets and continuations hold', () => {
    const source = lines(
      'def f():',
      "    text = '''",
      'def not_a_function():',
      "NODE_CLASS_MAPPINGS = {}'''",
      '    values = [',
      'NODE_CLASS_MAPPINGS,',
      '    ]',
      '    total = 1 + \\',
      'NODE_CLASS_MAPPINGS',
      '    escaped = "a \\" quote # not a comment ("',
      '    raw = r"\\" still in the string"',
      '\tif True:',
      '\t\treturn 1',
      'X = 1',
    );
    expect(withoutFunctions(source)).toBe(`0${'\n'.repeat(13)}X = 1\n`);
  });

  it('keeps the line numbers of Windows line breaks', () => {
    expect(withoutFunctions('def f():\r\n    pass\r\nX = 1\r\n')).toBe('0\r\n\r\nX = 1\r\n');
  });

  it.each([
    ['an unterminated string', 'X = "abc\nY = 1\n'],
    ['an unterminated triple-quoted string', 'X = """abc\n'],
    ['an unclosed bracket', 'X = {\n'],
    ['a bracket closed too often', 'X = 1)\n'],
  ])('gives up on %s', (_, source) => {
    expect(withoutFunctions(source)).toBeUndefined();
  });
});
