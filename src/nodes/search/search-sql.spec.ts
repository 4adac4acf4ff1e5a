import { containsPattern, searchCondition, searchIndexQuery } from './search-sql';

describe('search SQL', () => {
  describe('searchIndexQuery (SQLite trigram table)', () => {
    it('asks for the term as given when no İ can be in its match', () => {
      expect(searchIndexQuery('upscale')).toBe('"upscale"');
      expect(searchIndexQuery('say "hi" now')).toBe('"say ""hi"" now"');
    });

    it('also asks for an İ where the term ends in i, or has i + U+0307', () => {
      expect(searchIndexQuery('qui')).toBe('"qui" OR "quİ"');
      expect(searchIndexQuery('QUI')).toBe('"QUI" OR "QUİ"');
      expect(searchIndexQuery('qui\u0307z')).toBe('"qui\u0307z" OR "quİz"');
      expect(searchIndexQuery('ai\u0307bi')).toBe('"ai\u0307bi" OR "ai\u0307bİ" OR "aİbi" OR "aİbİ"');
      // An i followed by anything else cannot come from an İ.
      expect(searchIndexQuery('ice')).toBe('"ice"');
      // The term's own İ may be spelled i + U+0307 in a column.
      expect(searchIndexQuery('quİz')).toBe('"quİz" OR "qui\u0307z"');
    });

    it('narrows nothing where a spelling is under three characters or there are too many to ask', () => {
      expect(searchIndexQuery('ab')).toBeUndefined();
      expect(searchIndexQuery('xi\u0307')).toBeUndefined();
      expect(searchIndexQuery('i\u0307i\u0307i\u0307i\u0307')).toBeUndefined();
    });
  });

  describe('searchCondition', () => {
    it('folds case on the columns for a term beyond ASCII, and always on PostgreSQL', () => {
      expect(searchCondition('émile', true, 'n')).toContain(`fold_case(n.name) LIKE fold_case(:pattern)`);
      expect(searchCondition('upscale', false, 'n')).toBe(
        `(fold_case(n.id) LIKE fold_case(:pattern) ESCAPE '!' OR fold_case(n.name) LIKE fold_case(:pattern) ESCAPE '!' OR fold_case(n.description) LIKE fold_case(:pattern) ESCAPE '!' OR fold_case(n.author) LIKE fold_case(:pattern) ESCAPE '!')`,
      );
    });

    it("uses SQLite's own LIKE for an ASCII term, falling back only where a KELVIN SIGN or İ can be in its match", () => {
      const plain = searchCondition('upscale', true, 'n');
      expect(plain).not.toContain('fold_case');
      expect(plain).not.toContain('instr');
      expect(searchCondition('kelvo', true, 'n')).toContain(`instr(n.name, '\u212a')) AND fold_case(n.name)`);
      expect(searchCondition('kelvo', true, 'n')).not.toContain('\u0130');
      expect(searchCondition('QUI', true, 'n')).toContain(`instr(n.name, '\u0130')) AND fold_case(n.name)`);
      expect(searchCondition('QUI', true, 'n')).not.toContain('\u212a');
    });
  });

  it('escapes LIKE wildcards with !', () => {
    expect(containsPattern('100%_a!B')).toBe('%100!%!_a!!B%');
  });
});
