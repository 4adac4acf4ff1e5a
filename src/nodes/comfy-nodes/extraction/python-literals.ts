import { Node } from 'web-tree-sitter';

/**
 * Values of Python literals in a tree-sitter syntax tree: what a class body or a mapping says
 * without running anything. Each reader returns undefined for anything that is not such a literal
 * (a name, a call, an f-string, a bytes literal...), so callers skip it.
 */

// Python's backslash escapes in non-raw str literals.
const ESCAPE = /\\(\r\n|[\n\\'"abfnrtv]|[0-7]{1,3}|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|N\{[^}]*\})/g;
const SIMPLE_ESCAPES: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };

/** The string its escapes stand for, or undefined for one this cannot read. */
function decodeEscapes(content: string): string | undefined {
  let readable = true;
  const decoded = content.replace(ESCAPE, (_, escape: string) => {
    if (escape === '\n' || escape === '\r\n') return ''; // a line continuation
    if (escape in SIMPLE_ESCAPES) return SIMPLE_ESCAPES[escape];
    const code = /^[0-7]/.test(escape) ? parseInt(escape, 8) : /^[xuU]/.test(escape) ? parseInt(escape.slice(1), 16) : undefined;
    if (code !== undefined && code <= 0x10ffff) return String.fromCodePoint(code);
    // \N{...} names a character by its Unicode name, which needs Unicode's name table; past U+10FFFF
    // is Python's syntax error.
    readable &&= code === undefined && !escape.startsWith('N');
    return escape; // \\ \' \"
  });
  return readable ? decoded : undefined;
}

/** A str literal: plain, raw (r) or unicode (u) prefixed, implicitly concatenated ("a" "b"). */
export function stringLiteral(node: Node | null): string | undefined {
  if (node?.type === 'concatenated_string') {
    const parts = node.namedChildren.filter((part) => part.type !== 'comment').map(stringLiteral);
    return parts.every((part) => part !== undefined) ? parts.join('') : undefined;
  }
  if (node?.type !== 'string') return undefined;
  let prefix = '';
  let content = '';
  for (const child of node.namedChildren) {
    if (child.type === 'string_start') prefix = child.text.replace(/['"]+$/, '').toLowerCase();
    else if (child.type === 'string_content') content += child.text;
    else if (child.type !== 'string_end') return undefined; // an f-string's interpolation
  }
  if (prefix === 'r') return content;
  return prefix === '' || prefix === 'u' ? decodeEscapes(content) : undefined; // f, b, t (template) strings
}

export function booleanLiteral(node: Node | null): boolean | undefined {
  if (node?.type === 'true') return true;
  if (node?.type === 'false') return false;
  return undefined;
}

/** A tuple or list literal whose every element `element` reads. `("A")` is a string in parentheses, not a tuple. */
export function sequenceLiteral<T>(node: Node | null, element: (node: Node) => T | undefined): T[] | undefined {
  if (node?.type !== 'tuple' && node?.type !== 'list') return undefined;
  const values = node.namedChildren.filter((child) => child.type !== 'comment').map(element);
  return values.every((value): value is T => value !== undefined) ? values : undefined;
}
