// A Python tokenizer's view of a module, just enough to leave its functions out before parsing.

interface LogicalLine {
  /** Where its first token starts, and where the line break that ends it is (or the source's end). */
  start: number;
  end: number;
  /** Its indentation's width, tabs to the next multiple of 8 as in Python. */
  indent: number;
  opens: 'function' | 'decorator' | 'other';
}

const FUNCTION = /(?:async[ \t]+)?def[ \t]/y;

const isLineBreak = (c: string): boolean => c === '\n' || c === '\r';

function indentation(source: string, from: number, to: number): number {
  let width = 0;
  for (let i = from; i < to; i++) width = source[i] === '\t' ? width - (width % 8) + 8 : width + 1;
  return width;
}

function opener(source: string, at: number): LogicalLine['opens'] {
  if (source[at] === '@') return 'decorator';
  FUNCTION.lastIndex = at;
  return FUNCTION.test(source) ? 'function' : 'other';
}

/** Where the string literal whose opening quote is at `at` ends (its last character), or -1 if it does not. */
function endOfString(source: string, at: number): number {
  const quote = source[at];
  const closing = source.startsWith(quote.repeat(3), at) ? quote.repeat(3) : quote;
  for (let i = at + closing.length; i < source.length; i++) {
    const c = source[i];
    // Even in a raw string a backslash keeps the next quote from closing it.
    if (c === '\\') i += 1;
    else if (c === quote && source.startsWith(closing, i)) return i + closing.length - 1;
    else if (isLineBreak(c) && closing.length === 1) return -1;
  }
  return -1;
}

/** Where the line that `at` is on ends: its line break, or the source's end. */
function lineEnd(source: string, at: number): number {
  let i = at;
  while (i < source.length && !isLineBreak(source[i])) i += 1;
  return i;
}

function logicalLines(source: string): LogicalLine[] | undefined {
  const lines: LogicalLine[] = [];
  let line: LogicalLine | undefined; // the logical line being read, if any
  let physicalStart = 0;
  let depth = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (line === undefined) {
      // In a line's indentation, or a line that is blank or only a comment.
      if (c === ' ' || c === '\t' || c === '\f') continue;
      if (isLineBreak(c)) {
        physicalStart = i + 1;
        continue;
      }
      if (c === '#') {
        i = lineEnd(source, i) - 1;
        continue;
      }
      line = { start: i, end: source.length, indent: indentation(source, physicalStart, i), opens: opener(source, i) };
    }
    if (c === '#') {
      i = lineEnd(source, i) - 1;
    } else if (c === '"' || c === "'") {
      i = endOfString(source, i);
      if (i < 0) return undefined;
    } else if (c === '(' || c === '[' || c === '{') {
      depth += 1;
    } else if (c === ')' || c === ']' || c === '}') {
      depth -= 1;
      if (depth < 0) return undefined;
    } else if (c === '\\') {
      i += source.startsWith('\r\n', i + 1) ? 2 : 1; // a line continuation
    } else if (isLineBreak(c) && depth === 0) {
      line.end = i;
      lines.push(line);
      line = undefined;
      physicalStart = i + 1;
    }
  }
  if (depth !== 0) return undefined;
  if (line !== undefined) lines.push(line);
  return lines;
}

/**
 * Python source with every function definition left out, so that tree-sitter parses a fraction of it:
 * what a pack's node classes and mappings say is in module-level statements and class bodies, while
 * function bodies (methods included) are most of a pack's code and of the parsing time (bench/extraction.js:
 * 1.4 s for a 5 MiB pack parsed whole, 0.23 s outlined). Each definition, decorators and body, becomes the
 * statement `0` where it began, followed by only the line breaks it held, so every kept line keeps
 * its line number and the outline is valid Python when the source is. What this costs: a syntax
 * error inside a function body goes unseen.
 *
 * This is a tokenizer's view, not a parse: it follows strings, comments, brackets, line continuations
 * and indentation only to find where logical lines start. It returns undefined when it loses track
 * (an unterminated string, unbalanced brackets), and the caller then parses the whole source, as it
 * does when the outline has a syntax error.
 */
export function withoutFunctions(source: string): string | undefined {
  const lines = logicalLines(source);
  if (lines === undefined) return undefined;
  const parts: string[] = [];
  let copied = 0;
  for (let first = 0; first < lines.length; first++) {
    let definition = first;
    while (lines[definition].opens === 'decorator' && definition + 1 < lines.length) definition += 1;
    if (lines[definition].opens !== 'function') continue;
    // The body: the logical lines after the definition's that are indented more than it.
    let last = definition;
    while (last + 1 < lines.length && lines[last + 1].indent > lines[first].indent) last += 1;
    const { start } = lines[first];
    const { end } = lines[last];
    parts.push(source.slice(copied, start), '0', source.slice(start, end).replace(/[^\r\n]+/g, ''));
    copied = end;
    first = last;
  }
  parts.push(source.slice(copied));
  return parts.join('');
}
