/** The JSON paths (`$.nodes[0].description`) at which `value` holds null. */
export function nullPaths(value: unknown, path = '$'): string[] {
  if (value === null) return [path];
  if (Array.isArray(value)) return value.flatMap((item, index) => nullPaths(item, `${path}[${index}]`));
  if (typeof value === 'object' && value !== undefined) {
    return Object.entries(value).flatMap(([key, item]) => nullPaths(item, `${path}.${key}`));
  }
  return [];
}

/**
 * Replies leave out what has no value, never `null` (docs/api-rules.md §6: the
 * registry's clients test `'key' in obj` and crash on null). Fails listing
 * the JSON path of every null in `body`.
 */
export function expectNoNulls(body: unknown): void {
  expect({ nullsAt: nullPaths(body) }).toEqual({ nullsAt: [] });
}
