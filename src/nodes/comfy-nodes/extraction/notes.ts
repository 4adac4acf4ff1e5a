/** How many items of a group the reason names; the rest are counted. */
const LISTED = 5;

/**
 * What an extraction skipped or read only in part, grouped by why, for ExtractionResult.reason:
 * "syntax errors, read in part: a.py line 3; not read (over 1048576 bytes): big.py". Each group
 * keeps its first few items and a count, so a hostile archive cannot make the line, or memory, grow.
 */
export class Notes {
  private readonly groups = new Map<string, { listed: string[]; count: number }>();

  add(why: string, what: string): void {
    const group = this.groups.get(why) ?? { listed: [], count: 0 };
    if (group.count < LISTED) group.listed.push(what);
    group.count += 1;
    this.groups.set(why, group);
  }

  /** One phrase per group, in the order the groups were first noted. */
  phrases(): string[] {
    return [...this.groups].map(([why, { listed, count }]) => {
      const more = count > listed.length ? ` and ${count - listed.length} more` : '';
      return `${why}: ${listed.join(', ')}${more}`;
    });
  }
}
