import { applyDecorators } from '@nestjs/common';
import { IsUrl, ValidateIf, ValidationOptions, registerDecorator } from 'class-validator';

/** An absolute http(s) URL (hosts without a TLD, like localhost, are fine). */
export function IsHttpUrl(options: ValidationOptions = {}): PropertyDecorator {
  return IsUrl(
    { protocols: ['http', 'https'], require_protocol: true, require_tld: false, allow_underscores: true },
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
    function rejectNull(target: object, propertyName: string | symbol) {
      registerDecorator({
        name: 'notNullable',
        target: target.constructor,
        propertyName: propertyName as string,
        validator: {
          validate: (value: unknown) => value !== null,
          defaultMessage: (args) => `${args?.property} cannot be null`,
        },
      });
    },
  );
}

/** A JSON object whose every value is itself a JSON object (e.g. translations per language). */
export function IsObjectOfObjects(options: ValidationOptions = {}): PropertyDecorator {
  return function isObjectOfObjects(target: object, propertyName: string | symbol) {
    registerDecorator({
      name: 'isObjectOfObjects',
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: {
        validate: (value: unknown) =>
          isPlainObject(value) && Object.values(value).every((inner) => isPlainObject(inner)),
        defaultMessage: (args) => `${args?.property} must be an object whose values are objects`,
      },
    });
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
