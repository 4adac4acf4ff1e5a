import { KeptSearches } from './kept-searches';

describe('KeptSearches', () => {
  const ids = (...list: string[]) => new Set(list);

  it('answers a search only under the generation it was counted under', () => {
    const kept = new KeptSearches({ terms: 10, ids: 100 });
    kept.set('upscale', '7', { total: 5000 });
    expect(kept.get('upscale', '7')).toEqual({ total: 5000 });
    expect(kept.get('upscale', '8')).toBeUndefined();
    expect(kept.get('quokka', '7')).toBeUndefined();
    kept.set('upscale', '8', { total: 2, ids: ids('a', 'b') });
    expect(kept.get('upscale', '7')).toBeUndefined();
    expect(kept.get('upscale', '8')).toEqual({ total: 2, ids: ids('a', 'b') });
  });

  it('keeps the most recently used terms', () => {
    const kept = new KeptSearches({ terms: 2, ids: 100 });
    kept.set('a', '1', { total: 1 });
    kept.set('b', '1', { total: 2 });
    expect(kept.get('a', '1')?.total).toBe(1); // a is now the most recently used
    kept.set('c', '1', { total: 3 }); // drops b
    expect(kept.get('b', '1')).toBeUndefined();
    expect(kept.get('a', '1')?.total).toBe(1);
    expect(kept.get('c', '1')?.total).toBe(3);
  });

  it('holds at most so many ids in all, dropping the least recently used searches first', () => {
    const kept = new KeptSearches({ terms: 10, ids: 4 });
    kept.set('a', '1', { total: 2, ids: ids('1', '2') });
    kept.set('b', '1', { total: 2, ids: ids('3', '4') });
    kept.get('a', '1');
    kept.set('c', '1', { total: 1, ids: ids('5') }); // 5 ids: drops b, the least recently used
    expect(kept.get('b', '1')).toBeUndefined();
    expect(kept.get('a', '1')?.total).toBe(2);
    // Replacing a term's search releases its ids: a, c and d hold 4.
    kept.set('a', '2', { total: 1, ids: ids('1') });
    kept.set('d', '1', { total: 2, ids: ids('6', '7') });
    expect([kept.get('a', '2')?.total, kept.get('c', '1')?.total, kept.get('d', '1')?.total]).toEqual([1, 1, 2]);
  });
});
