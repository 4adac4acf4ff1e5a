/**
 * Typo tolerance (docs/api-rules.md §9.2): how close a node's id or name is to a
 * search term, the same on both databases (they only supply candidates, see
 * CatalogSearch.closeTo). The measure is pg_trgm's trigram similarity
 * (shared trigrams over all trigrams, each word padded with two spaces in
 * front and one behind), taken between the term and each word of the id and
 * name, and the best word counts: `upscalr` is 0.55 from `upscaler`.
 */
export const CLOSE_MATCH_THRESHOLD = 0.4;

/** The shortest term that gets typo tolerance: shorter ones share too few trigrams to tell a typo from chance. */
export const CLOSE_MATCH_MIN_LENGTH = 4;

function wordsOf(text: string): string[] {
  return text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((word) => word.length > 0);
}

function paddedTrigrams(word: string): Set<string> {
  const characters = [...`  ${word} `];
  return new Set(characters.slice(0, -2).map((_, index) => characters.slice(index, index + 3).join('')));
}

function similarity(a: Set<string>, b: Set<string>): number {
  let shared = 0;
  for (const trigram of a) if (b.has(trigram)) shared++;
  return shared / (a.size + b.size - shared);
}

/** How close a node's id and name are to a term, each from 0 to 1. */
export interface Closeness {
  /** The best-matching word's (or whole text's) similarity: what CLOSE_MATCH_THRESHOLD is held to. */
  word: number;
  /** The best whole id's or name's, which orders ties of `word`. */
  whole: number;
}

/** The closeness of `texts` (a node's id and name) to `term`. */
export function closeness(term: string, texts: readonly string[]): Closeness {
  const termWords = wordsOf(term);
  if (termWords.length === 0) return { word: 0, whole: 0 };
  const wanted = paddedTrigrams(termWords.join(' '));
  const best = (candidates: string[]) => Math.max(0, ...candidates.map((candidate) => similarity(wanted, paddedTrigrams(candidate))));
  const wholes = texts.map((text) => wordsOf(text).join(' '));
  return { word: best([...texts.flatMap(wordsOf), ...wholes]), whole: best(wholes) };
}

/** Closest first: by the best word, then by the whole id or name (for `upscalr`, `Upscaler` before `Demo Upscaler`). */
export function closerFirst(a: Closeness, b: Closeness): number {
  return b.word - a.word || b.whole - a.whole;
}
