import { FactoryProvider } from '@nestjs/common';
import { Gauge, register } from 'prom-client';
import { makeScrapeGaugeProvider, ScrapeGaugeOptions } from './scrape-gauge';

/** The gauge a provider makes, as Nest would build it with `owner` injected. */
function gaugeOf<Owner>(options: ScrapeGaugeOptions<Owner>, owner: Owner): Gauge {
  return (makeScrapeGaugeProvider(options) as FactoryProvider<Gauge>).useFactory(undefined, owner) as Gauge;
}

describe('makeScrapeGaugeProvider', () => {
  afterEach(() => register.clear());

  it('reads the owner on every scrape: one value, or one series per label value', async () => {
    let reading = 3;
    const single = gaugeOf({ name: 'single', help: 'h', owner: 'OWNER', read: (owner: { n: () => number }) => owner.n() }, { n: () => reading });
    expect((await single.get()).values.map((v) => v.value)).toEqual([3]);
    reading = 5;
    expect((await single.get()).values.map((v) => v.value)).toEqual([5]);

    let counts = new Map([['a', 1], ['b', 2]]);
    const labelled = gaugeOf({ name: 'labelled', help: 'h', label: 'kind', owner: 'OWNER', read: () => counts }, {});
    expect((await labelled.get()).values.map((v) => [v.labels.kind, v.value])).toEqual([['a', 1], ['b', 2]]);
    counts = new Map([['b', 4]]);
    expect((await labelled.get()).values.map((v) => [v.labels.kind, v.value])).toEqual([['b', 4]]);
  });

  it('reports a figure it cannot read as unknown (NaN, or no series) instead of failing the scrape', async () => {
    const failing = () => Promise.reject(new Error('database unreachable'));
    const single = gaugeOf({ name: 'single', help: 'h', owner: 'OWNER', read: failing }, {});
    expect((await single.get()).values.map((v) => v.value)).toEqual([NaN]);
    const labelled = gaugeOf({ name: 'labelled', help: 'h', label: 'kind', owner: 'OWNER', read: failing }, {});
    expect((await labelled.get()).values).toEqual([]);
    // prom-client writes `Nan`, which Prometheus reads as NaN (it parses floats ignoring case).
    await expect(register.metrics()).resolves.toMatch(/^single nan$/im);
  });
});
