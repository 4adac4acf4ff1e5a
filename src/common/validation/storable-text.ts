const UNPAIRED_SURROGATE = /\p{Cs}/u;

/**
 * Why `text` cannot be stored as it is, or undefined: a NUL character
 * (PostgreSQL cannot store it in text), or an unpaired surrogate (JSON's
 * `\ud800` escape: not Unicode, so both databases' drivers would store a
 * replacement character, each its own way, and a reply would differ from what
 * was sent).
 */
export function unstorableText(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain NUL characters';
  // In /u mode a surrogate pair reads as one code point, so \p{Cs} finds only unpaired halves.
  return UNPAIRED_SURROGATE.test(text) ? 'must be well-formed Unicode (it has an unpaired surrogate)' : undefined;
}
