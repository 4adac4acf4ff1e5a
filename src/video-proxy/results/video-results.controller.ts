import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { SignedQuery } from '../../common/signing/signed-query';
import { ServerResponse } from 'node:http';
import { sendDownload } from '../../archives/archive-download';
import { CurrentUser, PublicRead } from '../../auth/authenticated.decorator';
import { Principal } from '../../auth/principal';
import { HttpRequest } from '../../common/http/http-request';
import { ApiErrors } from '../../common/openapi/api-errors.decorator';
import { RESULTS_ROUTE } from './result-links';
import { VideoResultsService } from './video-results.service';

const MEDIA_BODY = { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } };
const HEADERS = {
  'Content-Type': { description: 'From the bytes: video/mp4, video/webm, video/quicktime, image/png, image/jpeg or image/webp', schema: { type: 'string' } },
  ETag: { description: 'The file’s sha256, quoted', schema: { type: 'string' } },
  'Cache-Control': { description: '`private, max-age=<seconds the link stays valid>` (`private, no-cache` for a bearer read)', schema: { type: 'string' } },
};

@ApiTags('video')
@Controller(RESULTS_ROUTE)
export class VideoResultsController {
  constructor(private readonly results: VideoResultsService) {}

  @Get(':sha256')
  // The signed link is the credential (a browser's <video> tag sends no token); the owner's or an admin's token also
  // works. A stale token beside a valid signature must not break playback: an invalid one is read as no token.
  @PublicRead()
  @ApiOperation({
    summary: 'A kept video or cover of a finished task',
    description:
      'The `stored_url` or `stored_cover_url` of a task’s creation: a link signed for VIDEO_RESULT_LINK_TTL_S. ' +
      'Without a valid signature, only the task’s owner or an admin (bearer token) may read it (others 403). ' +
      'A single `Range` answers 206; `If-None-Match` 304. A result deleted after VIDEO_RESULT_RETENTION_DAYS is 410.',
  })
  @ApiParam({ name: 'sha256', description: 'The file’s sha256', schema: { type: 'string', pattern: '^[0-9a-f]{64}$' } })
  @ApiResponse({ status: 200, description: 'The whole file', content: MEDIA_BODY, headers: HEADERS })
  @ApiResponse({ status: 206, description: 'The requested byte range', content: MEDIA_BODY, headers: HEADERS })
  @ApiResponse({ status: 304, description: 'The client’s copy (If-None-Match) is current; no body' })
  @ApiErrors(403, 404, 410, 416)
  async download(
    @CurrentUser() caller: Principal | undefined,
    @Param('sha256') sha256: string,
    @Query() signed: SignedQuery,
    @Req() req: HttpRequest,
    @Res() response: ServerResponse,
  ): Promise<void> {
    const file = await this.results.open(caller, sha256, signed);
    // A signed link is meant for a <video> tag on the frontend's origin: helmet's default (same-origin) would block it.
    response.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    sendDownload(file, req, response, file.read, file.representation);
  }
}
