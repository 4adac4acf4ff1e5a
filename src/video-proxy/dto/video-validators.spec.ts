import { validateSync } from 'class-validator';
import { codePointLength, IsImageReference, IsJsonString, MaxCodePoints } from './video-validators';

class Sample {
  @MaxCodePoints(3)
  text!: string;

  @IsJsonString()
  json!: string;

  @IsImageReference()
  images!: string[];
}

function problems(values: Partial<Sample>): string[] {
  const sample = Object.assign(new Sample(), { text: 'ok', json: '{}', images: [], ...values });
  return validateSync(sample).flatMap((e) => Object.keys(e.constraints ?? {}));
}

describe('video validators', () => {
  it('counts code points, not UTF-16 units', () => {
    expect(codePointLength('a😀b')).toBe(3);
    expect(codePointLength('\ud800')).toBe(1);
    expect(problems({ text: '😀😀😀' })).toEqual([]);
    expect(problems({ text: '😀😀😀😀' })).toEqual(['maxCodePoints']);
  });

  it('accepts JSON strings only', () => {
    expect(problems({ json: '{"a":[1,2]}' })).toEqual([]);
    expect(problems({ json: '{a:1}' })).toEqual(['isJsonString']);
  });

  it('checks multi-megabyte data URIs without exhausting the stack', () => {
    const big = `data:image/png;base64,${Buffer.alloc(6_000_000, 1).toString('base64')}`;
    expect(problems({ images: [big] })).toEqual([]);
    expect(problems({ images: [`${big.slice(0, -4)}!!!!`] })).toEqual(['isImageReference']);
  });

  it('accepts http(s) URLs and png/jpeg/webp base64 data URIs', () => {
    expect(problems({ images: ['https://example.com/a.png', 'data:image/png;base64,iVBORw0KGgo=', 'data:image/webp;base64,UklGRg=='] })).toEqual([]);
    for (const bad of ['ftp://x/a.png', 'data:image/gif;base64,R0lGOD==', 'data:image/png;base64,not base64!', 'data:image/png,raw', 'a.png']) {
      expect(problems({ images: [bad] })).toEqual(['isImageReference']);
    }
  });
});
