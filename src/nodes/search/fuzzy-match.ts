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

/** The closeness of the best-matching word of `texts` to `term`, from 0 to 1. */
export function closeness(term: string, texts: readonly string[]): number {
  const termWords = wordsOf(term);
  if (termWords.length === 0) return 0;
  const wanted = paddedTrigrams(termWords.join(' '));
  const words = texts.flatMap((text) => [...wordsOf(text), wordsOf(text).join(' ')]);
  return Math.max(0, ...words.map((word) => similarity(wanted, paddedTrigrams(word))));
}
