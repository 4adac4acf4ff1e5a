import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ServerResponse } from 'node:http';
import { ErrorResponseDto } from '../common/errors/error-response.dto';
import { addVary } from '../common/http/http-caching';
import { HttpRequest } from '../common/http/http-request';
import { ApiErrors } from '../common/openapi/api-errors.decorator';
import { sendDownload } from './archive-download';
import { ArchivesService } from './archives.service';
import { CurrentUser, PublicRead } from '../auth/authenticated.decorator';
import { Principal } from '../auth/principal';

const ZIP_BODY = { 'application/zip': { schema: { type: 'string', format: 'binary' } } };
const HEADERS = {
  ETag: { description: 'The archive’s sha256, quoted (a strong tag)', schema: { type: 'string' } },
  'Cache-Control': {
    description: '`public, max-age=31536000, immutable` (the bytes behind a name never change); `private, no-store` for an unreleased archive',
    schema: { type: 'string' },
  },
  'Accept-Ranges': { description: '`bytes`', schema: { type: 'string' } },
};

@ApiTags('archives')
// Released archives are public (the URL is in every installable version); a token lets a member or an admin
// fetch one under review (ArchivesService.downloadable).
@PublicRead()
@Controller('archives')
export class ArchivesController {
  constructor(private readonly archives: ArchivesService) {}

  @Get(':sha256.zip')
  @ApiOperation({
    summary: 'Download a node version’s archive',
    description:
      'The zip stored under its sha256 (the `downloadUrl` of a node version). Served to anyone while an active version ' +
      'holds it, and once a version was made active with it also after that version is deleted or given a newer archive, ' +
      'unless an admin bans the version (or its node is banned); otherwise (pending, blocked by its checks) only to an ' +
      'admin or a member of its publisher, with `Cache-Control: private, no-store`, and 404 to anyone else. ' +
      'HEAD answers the same headers without ' +
      'the body. `If-None-Match` (weak comparison, lists and `*`) answers 304. A single `Range: bytes=a-b` answers 206 ' +
      'with `Content-Range` (honoured only when an `If-Range` names this ETag, if one is sent); several ranges get ' +
      'the whole archive with 200.',
  })
  @ApiParam({ name: 'sha256', description: 'The archive’s sha256: 64 lowercase hex digits', schema: { type: 'string', pattern: '^[0-9a-f]{64}$' } })
  @ApiResponse({ status: 200, description: 'The whole archive', content: ZIP_BODY, headers: HEADERS })
  @ApiResponse({
    status: 206,
    description: 'The requested byte range',
    content: ZIP_BODY,
    headers: { ...HEADERS, 'Content-Range': { description: '`bytes a-b/size`', schema: { type: 'string' } } },
  })
  @ApiResponse({ status: 304, description: 'The client’s copy (If-None-Match) is current; no body' })
  @ApiResponse({
    status: 416,
    description: 'No requested range is within the archive; `Content-Range: bytes */size` gives its size',
    type: ErrorResponseDto,
    headers: { 'Content-Range': { description: '`bytes */size`', schema: { type: 'string' } } },
  })
  @ApiErrors(404)
  async download(
    @Param('sha256') sha256: string,
    @CurrentUser() caller: Principal | undefined,
    @Req() req: HttpRequest,
    @Res() response: ServerResponse,
  ): Promise<void> {
    // Who asks decides (a member gets what the public does not), and a 404 may become a 200 within seconds (a
    // version's checks passing): no cache may keep the refusal, nor answer one caller with another's reply.
    addVary(response, 'Authorization');
    response.setHeader('Cache-Control', 'no-store');
    const { archive, representation } = await this.archives.downloadable(sha256, caller);
    sendDownload(archive, req, response, (range) => this.archives.read(archive.sha256, range), representation);
  }
}
