import { Type } from '@nestjs/common';

const ADMIN_ONLY_FIELDS = Symbol('adminOnlyFields');

/**
 * Marks a request field that only admins may change. The mark sits on the
 * field itself so that a new field is declared once, where it is validated
 * and documented; services derive their check from `adminOnlyFields`
 * instead of keeping a list beside the DTO that a new field could miss.
 */
export function AdminOnly(): PropertyDecorator {
  return (prototype, property) => {
    if (typeof property !== 'string') return;
    // getMetadata reads through the class chain: a subclass adds to its parent's fields.
    const inherited = (Reflect.getMetadata(ADMIN_ONLY_FIELDS, prototype.constructor) as string[] | undefined) ?? [];
    Reflect.defineMetadata(ADMIN_ONLY_FIELDS, [...inherited, property], prototype.constructor);
  };
}

/** The fields of `dto` (its parents' included) marked `@AdminOnly()`. */
export function adminOnlyFields<T>(dto: Type<T>): (keyof T & string)[] {
  return (Reflect.getMetadata(ADMIN_ONLY_FIELDS, dto) as (keyof T & string)[] | undefined) ?? [];
}
