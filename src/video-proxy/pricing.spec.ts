import { DEFAULT_PRICES, estimateCredits, parsePriceTable } from './pricing';

describe('estimateCredits', () => {
  it('charges per second, with a default duration', () => {
    expect(estimateCredits({ model: 'videoq3-pro', duration: 8 }, DEFAULT_PRICES, 50)).toBe(80);
    expect(estimateCredits({ model: 'videoq2-turbo' }, DEFAULT_PRICES, 50)).toBe(25);
  });

  it('adds 10 for is_rec and discounts off-peak (rounding up)', () => {
    expect(estimateCredits({ model: 'videoq3-pro', duration: 8, is_rec: true }, DEFAULT_PRICES, 50)).toBe(90);
    expect(estimateCredits({ model: 'videoq2-turbo', duration: 3, off_peak: true }, DEFAULT_PRICES, 50)).toBe(8);
    expect(estimateCredits({ model: 'videoq2-turbo', duration: 3, off_peak: true, is_rec: true }, DEFAULT_PRICES, 50)).toBe(18);
  });
});

describe('parsePriceTable', () => {
  it('merges overrides over the defaults', () => {
    expect(parsePriceTable('{"videoq1": 1.5}')).toEqual({ ...DEFAULT_PRICES, videoq1: 1.5 });
    expect(parsePriceTable(undefined)).toEqual(DEFAULT_PRICES);
  });

  it('rejects what it cannot use', () => {
    expect(() => parsePriceTable('[1]')).toThrow(/JSON object/);
    expect(() => parsePriceTable('{"nope": 1}')).toThrow(/unknown model/);
    expect(() => parsePriceTable('{"videoq1": -1}')).toThrow(/non-negative/);
    expect(() => parsePriceTable('{oops')).toThrow(/JSON object/);
  });
});
