import { MAX_INDENT_COLUMNS, NotParsed, PARSE_BUDGET_MS, pythonParser } from './python-parser';

/** `depth` nested `if` blocks, each indented `step` more than the one around it. */
const nested = (depth: number, step: string) =>
  Array.from({ length: depth }, (_, level) => `${step.repeat(level)}if x:\n`).join('') + `${step.repeat(depth)}NODE_CLASS_MAPPINGS["Deep"] = Deep\n`;

describe('pythonParser', () => {
  const healthy = async () => (await pythonParser()).parse('class A:\n    CATEGORY = "a"\n', (root) => root.toString());

  it('loads once, and parses Python with tree-sitter', async () => {
    expect(await pythonParser()).toBe(await pythonParser());
    expect(await healthy()).toBe(
      '(module (class_definition name: (identifier) body: (block (expression_statement (assignment left: (identifier) right: (string (string_start) (string_content) (string_end)))))))',
    );
  });

  // Past about 510 nested blocks tree-sitter-python's scanner writes out of bounds and the parser fails from then on.
  it.each([
    ['spaces', nested(600, ' ')],
    ['tabs', nested(600, '\t')],
    ['backslash-newlines carrying the indentation over', nested(600, '\\\n ')],
  ])('leaves unparsed a module whose blocks could nest 500 deep (%s), and parses the next ones', async (_, source) => {
    const parser = await pythonParser();
    expect(() => parser.parse(source, (root) => root.hasError)).toThrow(new NotParsed(`a line indented ${MAX_INDENT_COLUMNS} columns or more`));
    expect(await healthy()).toMatch(/^\(module \(class_definition/);
  });

  it('parses nesting that stays short of that, and long runs of spaces within a line', async () => {
    const parser = await pythonParser();
    expect(parser.parse(nested(60, '    '), (root) => root.hasError)).toBe(false);
    expect(parser.parse(`x = [1,${' '.repeat(1000)}2]  ${' '.repeat(1000)}# aligned\n`, (root) => root.hasError)).toBe(false);
  });

  it('gives up on a module that takes too long to parse, and parses the next ones', async () => {
    const parser = await pythonParser();
    const garbage = Array.from({ length: 4 * 1024 * 1024 }, (_, i) => '([{"\'\\\n\t :=#@abc'[(i * 7919) % 19]).join('');
    // Garbage this long takes seconds to parse whole: refused at the budget (its real cost is the bench's to measure).
    expect(() => parser.parse(garbage, (root) => root.hasError)).toThrow(new NotParsed(`parsing took over ${PARSE_BUDGET_MS} ms`));
    expect(await healthy()).toMatch(/^\(module \(class_definition/);
  });
});
