import { MaxLength, validateSync } from 'class-validator';
import { IsHttpUrl } from './validators';

class Link {
  @IsHttpUrl()
  @MaxLength(2048)
  url!: string;
}

const problems = (url: string) => validateSync(Object.assign(new Link(), { url })).flatMap((error) => Object.values(error.constraints ?? {}));

describe('IsHttpUrl', () => {
  it('takes absolute http(s) URLs, localhost included, and refuses others', () => {
    expect(problems('https://example.com/a?b=c')).toEqual([]);
    expect(problems('http://localhost:3000/x')).toEqual([]);
    for (const url of ['ftp://example.com/x', '/relative', 'https://user:secret@example.com/']) {
      expect(problems(url)).toEqual(['url must be an absolute http(s) URL']);
    }
  });

  it('leaves a long URL to the field\'s own length limit: one message, about its length', () => {
    expect(problems(`https://example.com/${'a'.repeat(3000)}`)).toEqual(['url must be shorter than or equal to 2048 characters']);
  });
});
