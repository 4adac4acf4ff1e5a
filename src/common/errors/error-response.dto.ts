import { ApiInteger } from '../openapi/api-integer.decorator';

/** The body of every non-2xx reply. */
export class ErrorResponseDto {
  /** HTTP status code, repeated in the body. @example 404 */
  @ApiInteger()
  statusCode!: number;
  /** HTTP reason phrase. @example Not Found */
  error!: string;
  /** One human-readable sentence; for validation, every problem joined, each naming its field. @example node 'x' not found */
  message!: string;
  /** The request id, also sent as the X-Request-Id header. @example 8f14e45f-ceea-467f-a0e6-2b7b2d8f0a11 */
  requestId!: string;
}
