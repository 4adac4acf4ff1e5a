import { applyDecorators } from '@nestjs/common';
import { IsUrl, ValidateIf, ValidationOptions, registerDecorator } from 'class-validator';
import { isPlainObject } from './plain-object';

/**
 * A property decorator from a predicate and a message (written with the
 * property's name), sparing each custom rule class-validator's registration.
 */
export function customRule(
  name: string,
  isValid: (value: unknown) => boolean,
  message: (property: string) => string,
  options: ValidationOptions = {},
): PropertyDecorator {
  return function rule(target: object, propertyName: string | symbol) {
    registerDecorator({
      name,
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: { validate: isValid, defaultMessage: (args) => message(args?.property ?? String(propertyName)) },
    });
  };
}

/**
 * An absolute http(s) URL (hosts without a TLD, like localhost, are fine),
 * of any length: each field bounds its own with MaxLength, so a long URL
 * gets one message, about its length.
 */
export function IsHttpUrl(options: ValidationOptions = {}): PropertyDecorator {
  return IsUrl(
    { protocols: ['http', 'https'], require_protocol: true, require_tld: false, allow_underscores: true, disallow_auth: true, validate_length: false },
    { message: ({ property }) => `${property} must be an absolute http(s) URL`, ...options },
  );
}

/**
 * Merge-patch optionality: omitted (undefined) and null skip the other
 * validators (null then clears the field). Use `NotNullable` for fields that
 * may be omitted but never cleared.
 */
export function Nullable(): PropertyDecorator {
  return ValidateIf((_object, value) => value !== undefined && value !== null);
}

/** May be omitted, but null is rejected with a message that says so. */
export function NotNullable(): PropertyDecorator {
  return applyDecorators(
    ValidateIf((_object, value) => value !== undefined),
    customRule('notNullable', (value) => value !== null, (property) => `${property} cannot be null`),
  );
}

/**
 * A merge-patch of a JSON object whose every value is itself a JSON object
 * (e.g. translations per language): each value an object, or null to remove
 * that member (see mergePatch).
 */
export function IsObjectOfObjectsPatch(options: ValidationOptions = {}): PropertyDecorator {
  return customRule(
    'isObjectOfObjectsPatch',
    (value) => isPlainObject(value) && Object.values(value).every((inner) => inner === null || isPlainObject(inner)),
    (property) => `${property} must be an object whose values are objects (or null, which removes one)`,
    options,
  );
}
