import { applyDecorators, Controller, HttpCode, Post, Query, Req } from '@nestjs/common';
import { IncomingMessage } from 'node:http';
import { ApiBody, ApiHeader, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ErrorResponseDto } from '../../common/errors/error-response.dto';
import { RawBody } from '../../common/http/json-body-limits';
import { ApiErrors } from '../../common/openapi/api-errors.decorator';
import { incomingCallbackOf, UpstreamCallbacksService } from './upstream-callbacks.service';
import { SIGNED_HEADERS } from './upstream-signature';
import { Public } from '../../auth/authenticated.decorator';

/** The headers of the upstream's signature, each needed: those it signs, and its own. */
const SIGNATURE_HEADERS = [...SIGNED_HEADERS, 'X-HMAC-ALGORITHM', 'X-HMAC-ACCESS-KEY', 'X-HMAC-SIGNED-HEADERS', 'X-HMAC-SIGNATURE'];

@ApiTags('video')
// The upstream's signature is the credential (checked by the service before the body is read).
@Public()
@Controller('proxy/video/callbacks')
export class UpstreamCallbacksController {
  constructor(private readonly callbacks: UpstreamCallbacksService) {}

  /** Task status updates from the upstream video service (not for clients). */
  @Post('upstream')
  @HttpCode(204)
  // Read by the service once the signature holds.
  @RawBody()
  @ApiOperation({
    description:
      'Signed by the upstream: `Date`, `x-request-nonce`, `X-HMAC-ALGORITHM: hmac-sha256`, `X-HMAC-ACCESS-KEY`, ' +
      '`X-HMAC-SIGNED-HEADERS: Date;x-request-nonce`, `X-HMAC-SIGNATURE` = base64(HMAC-SHA256(upstream API key, ' +
      '"METHOD\\npath\\ncanonical query\\naccess key\\nDate\\n" + one "Name:value\\n" per signed header)). Unsigned, ' +
      'mis-signed, stale (Date more than 5 minutes off) or replayed callbacks are 401, answered before the body is ' +
      'read. The body is the upstream’s task query reply `{id, state, err_code, credits, creations, ...}`.',
  })
  @applyDecorators(...SIGNATURE_HEADERS.map((name) => ApiHeader({ name, required: true })))
  @ApiBody({ schema: { type: 'object' } })
  @ApiErrors(400, 413, 415, 429)
  @ApiResponse({ status: 401, description: 'Unsigned, mis-signed, stale or replayed (a signature header missing included)', type: ErrorResponseDto })
  // Any query: it is part of what the upstream signs.
  receive(@Req() req: IncomingMessage, @Query() query: Record<string, unknown>): Promise<void> {
    return this.callbacks.receive(incomingCallbackOf(req, query));
  }
}
