/** The keys of T whose value may be null or undefined. */
type AbsentableKeys<T> = { [K in keyof T]-?: null extends T[K] ? K : undefined extends T[K] ? K : never }[keyof T];

/** T with every key that may hold null or undefined made optional and non-nullable; the other keys unchanged. */
export type OmitAbsent<T> = { [K in Exclude<keyof T, AbsentableKeys<T>>]: T[K] } & {
  [K in AbsentableKeys<T>]?: Exclude<T[K], null | undefined>;
};

/**
 * A copy of `fields` without the properties that are null or undefined.
 *
 * Replies leave out what has no value (docs/api-rules.md §6): the registry's clients
 * test `'key' in obj` and crash on `null`. Mappers pass entity columns
 * (`string | null`) straight in; the result type makes each such field
 * optional and non-nullable, so it only fits a reply class that declares the
 * field `field?: T`, and a mapper that bypasses this helper with a nullable
 * value fails to compile. Shallow: nested replies come from their own mappers.
 */
export function omitAbsent<T extends object>(fields: T): OmitAbsent<T> {
  // A plain loop: entries/filter/fromEntries allocated an array per field (4% of a catalog page's CPU, profiled
  // when the catalog's mappers used this).
  const reply: Record<string, unknown> = {};
  for (const key of Object.keys(fields)) {
    const value = (fields as Record<string, unknown>)[key];
    if (value !== null && value !== undefined) reply[key] = value;
  }
  return reply as OmitAbsent<T>;
}

/**
 * A column's value as a reply field: null becomes undefined, a key that
 * JSON.stringify leaves out, so the reply has no such key, as with
 * omitAbsent (docs/api-rules.md §6). For the catalog's mappers, which run for every
 * node of a page: an object literal of `absentIfNull(...)` fields is built
 * in one allocation with one shape, where omitAbsent copies each object key
 * by key (a fifth of a page of 1,000's CPU went to building replies,
 * profiled). The reply DTO's `field?: T` still refuses a `T | null` passed
 * without it, so the compile-time guarantee is the same; only the object in
 * memory keeps the key (with undefined) until it is serialized.
 */
export function absentIfNull<T>(value: T | null): T | undefined {
  return value === null ? undefined : value;
}
