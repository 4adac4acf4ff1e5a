import { ArgumentMetadata, BadRequestException, Injectable, ValidationError, ValidationPipe } from '@nestjs/common';

/** Every failed constraint as "<field path>: <problem>"-style sentences, nested fields included. */
export function describeValidationErrors(errors: ValidationError[], parentPath = ''): string[] {
  return errors.flatMap((error) => {
    const path = parentPath ? `${parentPath}.${error.property}` : error.property;
    // A null where null is not allowed fails every type check too; saying so once is clearer.
    const constraints = error.constraints?.notNullable ? { notNullable: error.constraints.notNullable } : error.constraints;
    const own = Object.values(constraints ?? {}).map((text) =>
      parentPath && text.startsWith(`${error.property} `) ? `${path}${text.slice(error.property.length)}` : text,
    );
    return [...own, ...describeValidationErrors(error.children ?? [], path)];
  });
}

/**
 * The global pipe: strict JSON types (no implicit conversion), unknown fields
 * rejected by name, and one joined message for the contract's error body.
 */
@Injectable()
export class StrictValidationPipe extends ValidationPipe {
  constructor() {
    super({
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      transform: true,
      transformOptions: { enableImplicitConversion: false },
      validationError: { target: false, value: false },
      exceptionFactory: (errors) => new BadRequestException(describeValidationErrors(errors).join('; ')),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && metadata.metatype && this.toValidate(metadata)) {
      if (value === undefined) {
        value = {};
      } else if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        throw new BadRequestException('request body must be a JSON object');
      }
    }
    return super.transform(value, metadata);
  }
}
