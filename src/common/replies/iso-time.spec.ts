import { isoTime } from './iso-time';

describe('isoTime', () => {
  it('writes exactly what toISOString writes', () => {
    const edges = [
      0,
      -1,
      1,
      Date.UTC(2024, 1, 29, 23, 59, 59, 999), // a leap day, last millisecond
      Date.UTC(2026, 0, 1, 0, 0, 0, 7),
      -2208988800000, // 1900-01-01, where Date.UTC's two-digit years start
      -61000000000000, // year 36: under 100, padded to four digits
      -62167219200000, // 0000-01-01T00:00:00.000Z
      -62167219200001, // the millisecond before: -000001-12-31T23:59:59.999Z
      253402300799999, // 9999-12-31T23:59:59.999Z
      253402300800000, // +010000-01-01T00:00:00.000Z
      8.64e15,
      -8.64e15,
    ];
    // A fixed pseudo-random spread over the whole range a Date can hold.
    let seed = 42;
    const spread = Array.from({ length: 20000 }, () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return Math.round((seed / 2147483648 - 0.5) * 2 * (seed % 2 === 0 ? 8.64e15 : 4e12));
    });
    for (const time of [...edges, ...spread]) {
      const date = new Date(time);
      expect(isoTime(date)).toBe(date.toISOString());
    }
  });

  it('throws as toISOString does for an invalid date', () => {
    expect(() => isoTime(new Date(Number.NaN))).toThrow(RangeError);
  });
});
