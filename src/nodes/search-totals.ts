/**
 * Exact search totals, each kept with the search generation it was counted
 * under (see the search-generation migration): valid while the generation
 * is unchanged, since nothing a search can match has changed since. The
 * most recently used `capacity` terms are kept.
 */
export class SearchTotals {
  private readonly totals = new Map<string, { generation: string; total: number }>();

  constructor(private readonly capacity: number) {}

  /** The total counted for `term` under `generation`; undefined when none was, or under another generation. */
  get(term: string, generation: string): number | undefined {
    const kept = this.totals.get(term);
    if (kept === undefined || kept.generation !== generation) return undefined;
    // Most recently used last, so the first key is the one to drop.
    this.totals.delete(term);
    this.totals.set(term, kept);
    return kept.total;
  }

  set(term: string, generation: string, total: number): void {
    this.totals.delete(term);
    this.totals.set(term, { generation, total });
    if (this.totals.size > this.capacity) {
      const [oldest] = this.totals.keys();
      this.totals.delete(oldest);
    }
  }
}
