import { Node } from 'web-tree-sitter';
import type { ExtractedNodeClass } from './extract-node-classes';
import { withoutFunctions } from './outline';
import { booleanLiteral, sequenceLiteral, stringLiteral } from './python-literals';
import { PythonParser } from './python-parser';

/** What a class body says of a node; `description` is its DESCRIPTION. */
export type ClassAttributes = Omit<ExtractedNodeClass, 'name'>;
export type MappingName = 'NODE_CLASS_MAPPINGS' | 'NODE_DISPLAY_NAME_MAPPINGS';

/**
 * The class a mapping's value names: its name where it is defined and, when
 * the module got it by an import, the module imported from as written
 * (`.nodes.image`, `..impl`, `pkg.mod`); without `from`, a class of this
 * module or of no import it can see.
 */
export interface ClassReference {
  name: string;
  from?: string;
}

/** What a module-level name is bound to by the imports read so far: a class of another module, or a module. */
type Binding = { kind: 'class'; reference: ClassReference } | { kind: 'module'; module: string };
type Bindings = Map<string, Binding>;

/**
 * What one Python module says when imported, read from its syntax tree without running it: its
 * module-level statements, also within if/try/with/for blocks, and its class bodies; not what its
 * functions would do if called.
 */
export interface ModuleFacts {
  /**
   * NODE_CLASS_MAPPINGS's literal keys, each with the class its value names (`Foo` or `module.Foo`), if it names
   * one; a name imported under an alias (`from .x import Foo as F`) is the class's own name.
   */
  classMappings: [key: string, reference: ClassReference | undefined][];
  /** NODE_DISPLAY_NAME_MAPPINGS's literal keys whose values are literal strings. */
  displayNames: [key: string, displayName: string][];
  /** Every class defined by those statements, with the attributes its body assigns as literals. */
  classes: [name: string, attributes: ClassAttributes][];
  /** Where a mapping gets entries that are not literal (a comprehension, `**spread`, a call, a computed key): skipped. */
  nonLiteral: { mapping: MappingName; line: number }[];
  /** The line of the first syntax error, when there is one: then only the top-level statements free of errors were read. */
  syntaxErrorLine?: number;
}

/** `{ [key]: value }`, or nothing when the value was not a literal. */
function only<K extends keyof ClassAttributes>(key: K, value: ClassAttributes[K]): ClassAttributes {
  const attributes: ClassAttributes = {};
  if (value !== undefined) attributes[key] = value;
  return attributes;
}

const strings = (node: Node | null) => sequenceLiteral(node, stringLiteral);
const booleans = (node: Node | null) => sequenceLiteral(node, booleanLiteral);

/** The class attributes ComfyUI reads, by their names in the class body. */
const ATTRIBUTES = new Map<string, (value: Node | null) => ClassAttributes>([
  ['CATEGORY', (value) => only('category', stringLiteral(value))],
  ['FUNCTION', (value) => only('function', stringLiteral(value))],
  ['DESCRIPTION', (value) => only('description', stringLiteral(value))],
  ['RETURN_TYPES', (value) => only('returnTypes', strings(value))],
  ['RETURN_NAMES', (value) => only('returnNames', strings(value))],
  ['OUTPUT_IS_LIST', (value) => only('outputIsList', booleans(value))],
  ['DEPRECATED', (value) => only('deprecated', booleanLiteral(value))],
  ['EXPERIMENTAL', (value) => only('experimental', booleanLiteral(value))],
]);

/** Literal assignments directly in the class body (`CATEGORY = "…"`, also annotated); later ones win, as in Python. */
function classAttributes(body: Node): ClassAttributes {
  const attributes: ClassAttributes = {};
  for (const statement of body.namedChildren) {
    const assignment = statement.type === 'expression_statement' ? statement.firstNamedChild : null;
    if (assignment?.type !== 'assignment') continue;
    const target = assignment.childForFieldName('left');
    const read = target?.type === 'identifier' ? ATTRIBUTES.get(target.text) : undefined;
    if (read !== undefined) Object.assign(attributes, read(assignment.childForFieldName('right')));
  }
  return attributes;
}

type Entries = [key: string, value: Node][];

/** A dict display's `"key": value` pairs; anything else in it, or anything but a dict display, goes to `skipped`. */
function dictionaryEntries(node: Node, skipped: Node[]): Entries {
  if (node.type !== 'dictionary') {
    skipped.push(node);
    return [];
  }
  return node.namedChildren.flatMap((child): Entries => {
    if (child.type === 'comment') return [];
    const key = child.type === 'pair' ? stringLiteral(child.childForFieldName('key')) : undefined;
    const value = child.childForFieldName('value');
    if (key !== undefined && value !== null) return [[key, value]];
    skipped.push(child);
    return [];
  });
}

/** `update`'s arguments: dict displays, and keywords (`X=Foo` is the literal key "X"). */
function updateEntries(argumentList: Node, skipped: Node[]): Entries {
  return argumentList.namedChildren.flatMap((argument): Entries => {
    if (argument.type === 'comment') return [];
    if (argument.type !== 'keyword_argument') return dictionaryEntries(argument, skipped);
    const [name, value] = [argument.childForFieldName('name'), argument.childForFieldName('value')];
    return name !== null && value !== null ? [[name.text, value]] : [];
  });
}

function mappingNamed(node: Node | null): MappingName | undefined {
  const name = node?.type === 'identifier' ? node.text : undefined;
  return name === 'NODE_CLASS_MAPPINGS' || name === 'NODE_DISPLAY_NAME_MAPPINGS' ? name : undefined;
}

/**
 * The entries an expression statement puts into a mapping: `M = {…}` (also annotated), `M["X"] = …`
 * or `M.update({…}, X=…)`; undefined when it does none of these.
 */
function mappingEntries(expression: Node, skipped: Node[]): { mapping: MappingName; entries: Entries } | undefined {
  if (expression.type === 'call') {
    const method = expression.childForFieldName('function');
    const argumentList = expression.childForFieldName('arguments');
    const isUpdate = method?.type === 'attribute' && method.childForFieldName('attribute')?.text === 'update';
    const mapping = isUpdate ? mappingNamed(method.childForFieldName('object')) : undefined;
    return mapping === undefined || argumentList === null ? undefined : { mapping, entries: updateEntries(argumentList, skipped) };
  }
  if (expression.type !== 'assignment') return undefined;
  const [left, right] = [expression.childForFieldName('left'), expression.childForFieldName('right')];
  if (left === null || right === null) return undefined; // an annotation alone
  const whole = mappingNamed(left);
  if (whole !== undefined) return { mapping: whole, entries: dictionaryEntries(right, skipped) };
  const item = left.type === 'subscript' ? mappingNamed(left.childForFieldName('value')) : undefined;
  if (item === undefined) return undefined;
  const subscripts = left.childrenForFieldName('subscript');
  const key = subscripts.length === 1 ? stringLiteral(subscripts[0]) : undefined;
  if (key === undefined) skipped.push(left);
  return { mapping: item, entries: key === undefined ? [] : [[key, right]] };
}

/**
 * `Foo` and `module.Foo` name the class Foo; so does `F` after `from m import Foo as F`. Where the
 * name or the module came from an import, so does the class.
 */
function classReference(value: Node, bindings: Bindings): ClassReference | undefined {
  if (value.type === 'identifier') {
    const bound = bindings.get(value.text);
    return bound?.kind === 'class' ? bound.reference : { name: value.text };
  }
  const name = value.type === 'attribute' ? value.childForFieldName('attribute')?.text : undefined;
  if (name === undefined) return undefined;
  const object = value.childForFieldName('object');
  const bound = object?.type === 'identifier' ? bindings.get(object.text) : undefined;
  if (bound?.kind === 'module') return { name, from: bound.module };
  // `from . import nodes` then `nodes.Foo`: the submodule nodes of the package `.`.
  if (bound?.kind === 'class') return { name, from: submodule(bound.reference.from ?? '', bound.reference.name) };
  return { name };
}

/** The module `name` of the package `module` as an import would write it: `.` + `nodes` is `.nodes`, `.a` + `b` is `.a.b`. */
const submodule = (module: string, name: string) => (module.endsWith('.') ? `${module}${name}` : `${module}.${name}`);

function readExpression(expression: Node, facts: ModuleFacts, bindings: Bindings): void {
  const skipped: Node[] = [];
  const found = mappingEntries(expression, skipped);
  if (found === undefined) return;
  const { mapping, entries } = found;
  for (const [key, value] of entries) {
    if (mapping === 'NODE_CLASS_MAPPINGS') {
      facts.classMappings.push([key, classReference(value, bindings)]);
      continue;
    }
    const displayName = stringLiteral(value);
    if (displayName === undefined) skipped.push(value);
    else facts.displayNames.push([key, displayName]);
  }
  // Once per line: `{**a, **b}` is one place to look at.
  for (const line of new Set(skipped.map((node) => node.startPosition.row + 1))) facts.nonLiteral.push({ mapping, line });
}

function readClass(definition: Node, facts: ModuleFacts): void {
  const [name, body] = [definition.childForFieldName('name'), definition.childForFieldName('body')];
  if (name !== null && body !== null) facts.classes.push([name.text, classAttributes(body)]);
}

/**
 * What an import binds, for the statements that follow (Python binds a name before its use), until
 * the name is bound again (`from m import F`, `import F`, `class F`, `def F`, `F = …`):
 * `from m import Foo as F` binds F to the class Foo of m, `from m import Foo` Foo to that of m (or to
 * the submodule `m.Foo`, when an attribute is read from it), `import a.b as m` m to the module a.b.
 * `import a.b` binds a, which is not followed.
 */
function readImports(statement: Node, bindings: Bindings): void {
  const from = statement.type === 'import_from_statement' ? statement.childForFieldName('module_name')?.text : undefined;
  for (const imported of statement.childrenForFieldName('name')) {
    const [target, alias] =
      imported.type === 'aliased_import' ? [imported.childForFieldName('name'), imported.childForFieldName('alias')] : [imported, null];
    if (target === null) continue;
    if (from === undefined) {
      // `import a.b as m` binds the module a.b; `import a.b` binds a.
      if (alias) bindings.set(alias.text, { kind: 'module', module: target.text });
      else if (target.firstNamedChild) bindings.delete(target.firstNamedChild.text);
      continue;
    }
    const bound = alias ?? target.lastNamedChild;
    if (bound) bindings.set(bound.text, { kind: 'class', reference: { name: target.text, from } });
  }
}

function readStatement(statement: Node, facts: ModuleFacts, bindings: Bindings): void {
  if (statement.type === 'expression_statement') {
    const expression = statement.firstNamedChild;
    if (expression !== null) readExpression(expression, facts, bindings);
    const target = expression?.type === 'assignment' ? expression.childForFieldName('left') : null;
    if (target?.type === 'identifier') bindings.delete(target.text);
  } else if (['class_definition', 'function_definition', 'decorated_definition'].includes(statement.type)) {
    const definition = statement.type === 'decorated_definition' ? statement.childForFieldName('definition') : statement;
    if (definition?.type === 'class_definition') readClass(definition, facts);
    const name = definition?.childForFieldName('name');
    if (name) bindings.delete(name.text);
  } else if (statement.type === 'import_from_statement' || statement.type === 'import_statement') {
    readImports(statement, bindings);
  } else {
    // if/try/with/for/while/match run their blocks on import: read those (elif, else, except,
    // finally and case clauses hold theirs), not their conditions.
    for (const part of statement.namedChildren) {
      if (part.type === 'block') part.namedChildren.forEach((child) => readStatement(child, facts, bindings));
      else if (part.type.endsWith('_clause')) readStatement(part, facts, bindings);
    }
  }
}

/** The line of the first ERROR or MISSING node: down the first child that has one, from the root. */
function firstErrorLine(root: Node): number {
  let node = root;
  while (!node.isError && !node.isMissing) {
    const child = node.children.find((candidate) => candidate.hasError);
    if (child === undefined) break;
    node = child;
  }
  return node.startPosition.row + 1;
}

function moduleFacts(root: Node): ModuleFacts {
  const facts: ModuleFacts = { classMappings: [], displayNames: [], classes: [], nonLiteral: [] };
  // Python would import nothing of a module with a syntax error, but tree-sitter's grammar may lag
  // the language, and the pack's other modules still load: keep what its well-formed statements say.
  if (root.hasError) facts.syntaxErrorLine = firstErrorLine(root);
  const bindings: Bindings = new Map();
  for (const statement of root.namedChildren) if (!statement.hasError) readStatement(statement, facts, bindings);
  return facts;
}

/**
 * The module's facts, from its outline (see outline.ts), or from its whole source when the outline
 * has a syntax error. Throws NotParsed when the parser leaves the source unparsed.
 */
export function readModuleFacts(parser: PythonParser, source: string): ModuleFacts {
  const outline = withoutFunctions(source);
  const fromOutline = outline === undefined ? undefined : parser.parse(outline, (root) => (root.hasError ? undefined : moduleFacts(root)));
  return fromOutline ?? parser.parse(source, moduleFacts);
}
