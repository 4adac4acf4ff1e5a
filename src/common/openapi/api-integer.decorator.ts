import { ApiProperty } from '@nestjs/swagger';

export interface ApiIntegerOptions {
  required?: boolean;
  format?: 'int32' | 'int64';
  minimum?: number;
  maximum?: number;
}

/**
 * Documents a property or query parameter as an OpenAPI `integer`. The
 * Swagger CLI plugin sees only the TypeScript type and writes `number` for
 * every number (even beside `@IsInt`), which generated clients and the
 * public registry's spec read as a float. Whether the field is required, its
 * description and its `@Min`/`@Max` bounds still come from the plugin.
 */
export function ApiInteger(options: ApiIntegerOptions = {}): PropertyDecorator {
  return ApiProperty({ ...options, type: 'integer' });
}
