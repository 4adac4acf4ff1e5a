/** Constraints on a value's type. */
const TYPE_CONSTRAINTS = new Set(['isInt', 'isNumber', 'isString', 'isBoolean', 'isArray', 'isObject', 'isDate']);

/**
 * The messages of a field's failed constraints worth showing. A null where
 * null is not allowed fails every type check too: saying so once is clearer.
 * A value of the wrong type fails the range and length rules as well, which
 * are about a value of the right type: its type's message alone is true
 * (`limit=abc` is not an integer, not "greater than 100"). A number that is
 * not an integer is of the right type: its range is shown too.
 */
export function failedConstraintMessages(constraints: Record<string, string> = {}, value?: unknown): string[] {
  if (constraints.notNullable) return [constraints.notNullable];
  const failures = Object.entries(constraints);
  const typeFailures = failures.filter(([name]) => TYPE_CONSTRAINTS.has(name) && !(name === 'isInt' && typeof value === 'number'));
  return (typeFailures.length > 0 ? typeFailures : failures).map(([, message]) => message);
}
