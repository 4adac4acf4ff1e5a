import { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { PostgresCatalogSearch } from './catalog-search';

/** The trigrams closeTo asked the database for: the patterns of its parameters. */
function trigramsAskedFor(term: string): string[] {
  const parameters: Record<string, string> = {};
  const query = {
    andWhere: (_condition: string, given: Record<string, string> = {}) => (Object.assign(parameters, given), query),
    addSelect: () => query,
    orderBy: () => query,
  };
  new PostgresCatalogSearch().closeTo(query as unknown as SelectQueryBuilder<ObjectLiteral>, 'node', term);
  return Object.values(parameters).map((pattern) => pattern.replace(/^%|%$/g, ''));
}

describe('CatalogSearch.closeTo', () => {
  it('looks for every trigram of a short term', () => {
    expect(trigramsAskedFor('Upscalr')).toEqual(['ups', 'psc', 'sca', 'cal', 'alr']);
  });

  it('looks for at most eight trigrams of a long term, spread from its first to its last (each costs LIKEs on every candidate)', () => {
    const term = 'upscaler image video latent sampler controlnet tagger';
    const asked = trigramsAskedFor(term);
    expect(asked).toHaveLength(8);
    expect([asked[0], asked[7]]).toEqual(['ups', 'ger']);
  });
});
