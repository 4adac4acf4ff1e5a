/** How much of one line is held at once; a longer line is read in windows of this size. */
export const MAX_LINE_CHARS = 64 * 1024;

/**
 * How far consecutive windows of a long line overlap, so that anything up to this long is whole in
 * one of them: more than the longest secret pattern needs to match (a GitHub fine-grained token is 93).
 */
const WINDOW_OVERLAP = 1024;

/** A block of text and the (1-based) line number it starts on. */
export type BlockReader = (text: string, firstLine: number) => void;

/**
 * Cuts a file's bytes, as they stream in, into blocks of whole lines for `read`, holding at most about
 * one chunk and MAX_LINE_CHARS at once, however long the file and its lines are. Bytes are read as
 * Latin-1, one character each, so a UTF-8 sequence never splits and ASCII patterns match as in the
 * file. A line longer than MAX_LINE_CHARS comes in windows overlapping by WINDOW_OVERLAP, each with
 * that line's number (a match in the overlap may so be read twice).
 */
export class LineBlocks {
  /** The start of a line whose end has not come yet. */
  private pending = '';
  /** The number of the line `pending` is in. */
  private line = 1;

  constructor(private readonly read: BlockReader) {}

  push(chunk: Buffer): void {
    const text = this.pending + chunk.toString('latin1');
    const lastBreak = text.lastIndexOf('\n');
    if (lastBreak < 0) {
      this.pending = text;
    } else {
      const block = text.slice(0, lastBreak + 1);
      this.read(block, this.line);
      this.line += lineBreaks(block);
      this.pending = text.slice(lastBreak + 1);
    }
    if (this.pending.length > MAX_LINE_CHARS) {
      this.read(this.pending, this.line);
      this.pending = this.pending.slice(-WINDOW_OVERLAP);
    }
  }

  end(): void {
    if (this.pending.length > 0) this.read(this.pending, this.line);
    this.pending = '';
  }
}

export function lineBreaks(text: string, from = 0, to = text.length): number {
  let count = 0;
  for (let at = text.indexOf('\n', from); at >= 0 && at < to; at = text.indexOf('\n', at + 1)) count += 1;
  return count;
}
