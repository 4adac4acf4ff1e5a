/** What a search matched, as counted under one search generation. */
export interface KeptSearch {
  /** How many listed nodes match. */
  total: number;
  /** Their ids, when there were few enough to keep (see KeptSearches). */
  ids?: ReadonlySet<string>;
}

/**
 * Searches' matches, each kept with the search generation it was counted
 * under (see the search-generation migration): valid while the generation
 * is unchanged, since nothing a search can match has changed since (the
 * order is not kept: it is read from the catalog index on every page). The
 * most recently used `terms` are kept, holding at most `ids` ids in all:
 * the oldest are dropped first.
 */
export class KeptSearches {
  private readonly searches = new Map<string, { generation: string; search: KeptSearch }>();
  private keptIds = 0;

  constructor(private readonly limits: { terms: number; ids: number }) {}

  /** The search kept for `term` under `generation`; undefined when none was, or under another generation. */
  get(term: string, generation: string): KeptSearch | undefined {
    const kept = this.searches.get(term);
    if (kept === undefined || kept.generation !== generation) return undefined;
    // Most recently used last, so the first key is the one to drop.
    this.searches.delete(term);
    this.searches.set(term, kept);
    return kept.search;
  }

  set(term: string, generation: string, search: KeptSearch): void {
    this.drop(term);
    this.searches.set(term, { generation, search });
    this.keptIds += search.ids?.size ?? 0;
    while (this.searches.size > this.limits.terms || this.keptIds > this.limits.ids) {
      const [oldest] = this.searches.keys();
      this.drop(oldest);
    }
  }

  private drop(term: string): void {
    this.keptIds -= this.searches.get(term)?.search.ids?.size ?? 0;
    this.searches.delete(term);
  }
}
