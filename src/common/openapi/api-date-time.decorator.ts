import { ApiProperty } from '@nestjs/swagger';

/**
 * Documents a time as the interface types it: a `date-time` string (ISO 8601
 * in UTC, `Date.toISOString`). The Swagger CLI plugin sees only `string`;
 * whether the field is required and its description still come from it.
 */
export function ApiDateTime(): PropertyDecorator {
  return ApiProperty({ type: 'string', format: 'date-time' });
}
