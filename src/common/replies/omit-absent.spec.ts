import { omitAbsent } from './omit-absent';

describe('omitAbsent', () => {
  it('leaves out null and undefined, and keeps every other value, falsy ones and empty arrays included', () => {
    const fields = { a: null, b: undefined, c: '', d: 0, e: false, f: [], g: { h: null } };
    const result = omitAbsent(fields);
    expect(result).toEqual({ c: '', d: 0, e: false, f: [], g: { h: null } });
    expect(Object.keys(result)).toEqual(['c', 'd', 'e', 'f', 'g']);
  });

  it('types each nullable field as optional and non-nullable, the others as they were (checked by tsc)', () => {
    const fields = { id: 'x', description: null as string | null };
    const reply: { id: string; description?: string } = omitAbsent(fields);
    // @ts-expect-error a field that may be null is optional in the result, not required
    const required: { id: string; description: string } = omitAbsent(fields);
    // @ts-expect-error without the helper, the null does not fit an optional non-nullable field
    const unfiltered: { id: string; description?: string } = fields;
    expect([reply, required, unfiltered]).toEqual([{ id: 'x' }, { id: 'x' }, fields]);
  });
});
