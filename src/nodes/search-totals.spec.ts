import { SearchTotals } from './search-totals';

describe('SearchTotals', () => {
  it('answers a total only under the generation it was counted under', () => {
    const totals = new SearchTotals(10);
    totals.set('upscale', '7', 5000);
    expect(totals.get('upscale', '7')).toBe(5000);
    expect(totals.get('upscale', '8')).toBeUndefined();
    expect(totals.get('quokka', '7')).toBeUndefined();
    totals.set('upscale', '8', 4999);
    expect(totals.get('upscale', '7')).toBeUndefined();
    expect(totals.get('upscale', '8')).toBe(4999);
  });

  it('keeps the most recently used terms', () => {
    const totals = new SearchTotals(2);
    totals.set('a', '1', 1);
    totals.set('b', '1', 2);
    expect(totals.get('a', '1')).toBe(1); // a is now the most recently used
    totals.set('c', '1', 3); // drops b
    expect(totals.get('b', '1')).toBeUndefined();
    expect(totals.get('a', '1')).toBe(1);
    expect(totals.get('c', '1')).toBe(3);
  });
});
