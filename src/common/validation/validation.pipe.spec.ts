import { BadRequestException } from '@nestjs/common';
import { IsBoolean, IsInt, IsOptional, IsString, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { Type } from 'class-transformer';
import { ModuleRef } from '@nestjs/core';
import { BodyProblem, BodyRules, CheckedBy } from './body-rules';
import { NotNullable } from './validators';
import { MAX_INPUT_DEPTH, StrictValidationPipe } from './validation.pipe';

class Inner {
  @IsInt()
  @Min(1)
  @Max(10)
  count!: number;

  @IsOptional()
  @IsBoolean({ each: true })
  flags?: boolean[];
}

class Body {
  @NotNullable()
  @IsString()
  @MaxLength(20)
  name?: string;

  @ValidateNested()
  @Type(() => Inner)
  inner!: Inner;
}

async function messageFor(value: unknown): Promise<string> {
  try {
    await new StrictValidationPipe().transform(value, { type: 'body', metatype: Body });
  } catch (error) {
    return ((error as BadRequestException).getResponse() as { message: string }).message;
  }
  return 'no error';
}

describe('StrictValidationPipe', () => {
  it('joins every problem into one message, with nested paths', async () => {
    expect(await messageFor({ name: 5, inner: { count: 'x' }, extra: 1 })).toBe(
      'property extra should not exist; name must be a string; inner.count must be an integer number',
    );
  });

  it('says only what type a value of the wrong type must have, and the range of a number that is no integer', async () => {
    // A string fails the range and length rules too, which are about numbers and strings: not shown.
    expect(await messageFor({ name: 5, inner: { count: 'abc' } })).toBe('name must be a string; inner.count must be an integer number');
    expect(await messageFor({ name: 'n', inner: { count: 11.5 } })).toBe('inner.count must not be greater than 10; inner.count must be an integer number');
    expect(await messageFor({ name: 'n'.repeat(21), inner: { count: 0 } })).toBe('name must be shorter than or equal to 20 characters; inner.count must not be less than 1');
  });

  it('names a nested list by its path in a rule on each of its values', async () => {
    expect(await messageFor({ name: 'n', inner: { count: 1, flags: [true, 'no'] } })).toBe('each value in inner.flags must be a boolean value');
  });

  it('names an unknown nested field by its path', async () => {
    expect(await messageFor({ name: 'n', inner: { count: 1, extra: 1 }, extra: 2 })).toBe('property extra should not exist; property inner.extra should not exist');
  });

  it('refuses a property name holding a NUL or an unpaired surrogate, without echoing it', async () => {
    expect(await messageFor({ 'na\u0000me': 'n' })).toBe('property names in the request body must not contain NUL characters');
    expect(await messageFor({ name: 'n', inner: { '\udc00': 1 } })).toBe('property names in inner must be well-formed Unicode (it has an unpaired surrogate)');
  });

  it('says only "cannot be null" for a forbidden null', async () => {
    expect(await messageFor({ name: null, inner: { count: 1 } })).toBe('name cannot be null');
  });

  it('rejects bodies that are not JSON objects', async () => {
    expect(await messageFor([1])).toBe('request body must be a JSON object');
    expect(await messageFor('text')).toBe('request body must be a JSON object');
  });

  it('does not convert types implicitly', async () => {
    expect(await messageFor({ inner: { count: '3' } })).toBe('inner.count must be an integer number');
  });

  it('rejects nesting deeper than MAX_INPUT_DEPTH with a 400 instead of exhausting the stack', async () => {
    const nested = (levels: number): unknown => (JSON.parse(`${'['.repeat(levels)}1${']'.repeat(levels)}`) as unknown);
    expect(await messageFor({ inner: { count: 1 }, name: 'n', deep: nested(100_000) })).toBe(
      `deep${'.0'.repeat(MAX_INPUT_DEPTH - 1)} is nested more than ${MAX_INPUT_DEPTH} levels deep`,
    );
    // The deepest nesting allowed still reaches the DTO rules.
    expect(await messageFor({ inner: { count: 1 }, name: 'n', deep: nested(MAX_INPUT_DEPTH - 1) })).toBe('property deep should not exist');
  });

  describe('BodyRules', () => {
    class LimitFromConfig implements BodyRules<Limited> {
      constructor(readonly max: number) {}
      problems(body: Limited, failed: ReadonlySet<string>): BodyProblem[] {
        return !failed.has('size') && body.size > this.max ? [{ property: 'size', message: `size must be at most ${this.max} here` }] : [];
      }
    }
    @CheckedBy(LimitFromConfig)
    class Limited {
      @IsInt()
      size!: number;

      @IsString()
      label!: string;
    }
    const moduleRef = { get: () => new LimitFromConfig(3) } as unknown as ModuleRef;
    const transform = (pipe: StrictValidationPipe, value: unknown) => pipe.transform(value, { type: 'body', metatype: Limited });

    it("reports a rule's problems with the decorators', and skips the fields the decorators failed", async () => {
      await expect(transform(new StrictValidationPipe(moduleRef), { size: 5, label: 1 })).rejects.toMatchObject({
        response: { message: 'label must be a string; size must be at most 3 here' },
      });
      await expect(transform(new StrictValidationPipe(moduleRef), { size: 'x', label: 'a' })).rejects.toMatchObject({
        response: { message: 'size must be an integer number' },
      });
      await expect(transform(new StrictValidationPipe(moduleRef), { size: 3, label: 'a' })).resolves.toEqual({ size: 3, label: 'a' });
    });

    it('refuses to validate a class with rules when made without the app (it cannot resolve them)', async () => {
      await expect(transform(new StrictValidationPipe(), { size: 1, label: 'a' })).rejects.toThrow('Limited is checked by LimitFromConfig');
    });
  });
});
