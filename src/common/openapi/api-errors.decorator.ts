import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { ErrorResponseDto } from '../errors/error-response.dto';

const DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid input: unknown field, wrong type or a broken rule (the message names each field)',
  401: 'Missing, malformed, unknown or revoked bearer token',
  402: 'Not enough credits',
  403: 'Authenticated but not allowed',
  404: 'Not found',
  409: 'Conflicts with existing data',
  413: 'Request body too large',
  415: 'Request body is not JSON',
  429: 'Too many requests; see Retry-After',
};

/** Documents error replies with the shared error body. */
export function ApiErrors(...statuses: number[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ...statuses.map((status) =>
      ApiResponse({ status, description: DESCRIPTIONS[status] ?? 'Error', type: ErrorResponseDto }),
    ),
  );
}
