import { performance } from 'node:perf_hooks';
import { SharedRate } from './shared-rate';

describe('SharedRate', () => {
  it('lets reads run ahead of the rate by 50 ms, then says how long to wait, for every reader together', () => {
    const rate = new SharedRate(1000);
    expect(rate.book(40, 0)).toBe(0);
    expect(rate.book(20, 0)).toBe(60);
    // Another reader books after the first: its wait includes the first's.
    expect(rate.book(100, 10)).toBe(150);
    // Time spent idle is not saved up beyond the slack.
    expect(rate.book(40, 10_000)).toBe(0);
    expect(rate.book(40, 10_000)).toBe(80);
  });

  it('paces every source together: two sources of 100 KB at 1 MB/s take about 0.2 s, not 0.1', async () => {
    const rate = new SharedRate(1_000_000);
    const source = () => Array.from({ length: 10 }, () => Buffer.alloc(10_000));
    const drain = async (paced: AsyncIterable<Buffer>) => {
      let bytes = 0;
      for await (const chunk of paced) bytes += chunk.length;
      return bytes;
    };
    const started = performance.now();
    expect(await Promise.all([drain(rate.pace(source())), drain(rate.pace(source()))])).toEqual([100_000, 100_000]);
    // The first 50 ms run ahead (the slack); the rest waits for the rate.
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });
});
