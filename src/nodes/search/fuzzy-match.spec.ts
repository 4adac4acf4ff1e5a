import { closeness, closerFirst, CLOSE_MATCH_THRESHOLD } from './fuzzy-match';

describe('closeness', () => {
  it('is the best word’s trigram similarity, as pg_trgm measures it', () => {
    expect(closeness('upscalr', ['upscaler', 'Upscaler']).word).toBeCloseTo(0.545, 3);
    expect(closeness('upscalr', ['demo-upscaler', 'Demo Upscaler']).word).toBeCloseTo(0.545, 3);
    expect(closeness('zzqxv', ['upscaler', 'Upscaler']).word).toBeLessThan(CLOSE_MATCH_THRESHOLD);
  });

  it('orders equally close words by the whole id or name: the node named by the word first', () => {
    const nodes = [
      ['demo-upscaler', 'Demo Upscaler'],
      ['image-upscaler-pro', 'Image Upscaler Pro'],
      ['upscaler', 'Upscaler'],
    ];
    const ordered = nodes.map((texts) => ({ id: texts[0], closeness: closeness('upscalr', texts) })).sort((a, b) => closerFirst(a.closeness, b.closeness));
    expect(ordered.map(({ id }) => id)).toEqual(['upscaler', 'demo-upscaler', 'image-upscaler-pro']);
  });
});
