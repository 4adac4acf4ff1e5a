import { applyDecorators } from '@nestjs/common';
import { ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { ResponseObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { ErrorResponseDto } from '../errors/error-response.dto';

const DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid input: unknown field, wrong type or a broken rule (the message names each field)',
  401: 'Missing, malformed, unknown or revoked bearer token',
  402: 'Not enough credits',
  403: 'Not allowed (the message says why: not a member or an admin, a banned node or publisher, a bad signature)',
  404: 'Not found',
  408: 'The request was not received within REQUEST_TIMEOUT_MS',
  409: 'Conflicts with existing data',
  410: 'Gone: deleted after its retention period',
  413: 'Request body too large',
  415: 'Request body is not JSON (in UTF-8), or its Content-Encoding is not gzip, deflate or br',
  416: 'No requested range is within the file; `Content-Range: bytes */size` gives its size',
  422: 'Idempotency-Key reused with a different request body',
  429: 'Too many requests; see Retry-After',
  502: 'The upstream failed, sent a malformed reply or refused the proxy’s credentials',
  503: 'Temporarily unavailable (e.g. the upstream is out of credits)',
  504: 'The upstream did not answer in time',
};

/** Documents error replies with the shared error body. */
export function ApiErrors(...statuses: number[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ...statuses.map((status) =>
      ApiResponse({ status, description: DESCRIPTIONS[status] ?? 'Error', type: ErrorResponseDto }),
    ),
  );
}

/** One error reply as ApiErrors documents it, for operations completed after the document is built. */
export function errorResponseObject(status: number): ResponseObject {
  return {
    description: DESCRIPTIONS[status] ?? 'Error',
    content: { 'application/json': { schema: { $ref: getSchemaPath(ErrorResponseDto) } } },
  };
}
