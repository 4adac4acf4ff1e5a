import { Controller, HttpCode, Param, Put, Query, Req } from '@nestjs/common';
import { WritesPublicContent } from '../common/http/http-caching';
import { IncomingMessage } from 'node:http';
import { ApiBody, ApiConsumes, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { SignedQuery } from '../common/signing/signed-query';
import { requestOrigin } from '../common/http/http-request';
import { RawBody } from '../common/http/json-body-limits';
import { ApiErrors } from '../common/openapi/api-errors.decorator';
import { NodeVersionDto } from './dto/node-version.dto';
import { NodePublishingService } from './node-publishing.service';
import { UPLOAD_ROUTE } from './upload-urls';
import { Public } from '../auth/authenticated.decorator';

/** The target of the `signedUrl` a CLI publish returns; the signature is the credential (no bearer token). */
@ApiTags('nodes')
// The signed URL is the credential (checked by the service), as the publishing CLI expects.
@Public()
// Its writes change what public reads show (see PublicReadCache).
@WritesPublicContent()
@Controller()
export class UploadsController {
  constructor(private readonly publishing: NodePublishingService) {}

  /** Upload a pending version's archive to the signed URL its publish returned. */
  @Put(UPLOAD_ROUTE)
  // The zip streams to storage as it arrives (ArchivesService.receive).
  @RawBody()
  @HttpCode(200)
  @ApiOperation({
    description:
      'Use the `signedUrl` of a CLI publish as it is. The body is the zip (Content-Type: application/zip, at most ' +
      'ARCHIVE_MAX_BYTES). The version gets its `downloadUrl` and stays pending until its checks decide, within ' +
      'seconds: active, or flagged with the findings named. A forged, expired or already used URL (or one whose ' +
      'version was deleted) is 403; not a zip 400; too large 413.',
  })
  // The signed URL's own parameters: required here, where a signature is the only credential (missing: 403).
  @ApiQuery({ name: 'expires', required: true, type: String, description: 'Part of the signed URL (Unix seconds).' })
  @ApiQuery({ name: 'signature', required: true, type: String, description: 'Part of the signed URL.' })
  @ApiConsumes('application/zip')
  @ApiBody({ schema: { type: 'string', format: 'binary' } })
  @ApiErrors(400, 403, 413, 415)
  upload(
    @Param('versionId') versionId: string,
    @Query() signed: SignedQuery,
    @Req() req: IncomingMessage,
  ): Promise<NodeVersionDto> {
    return this.publishing.uploadSigned(versionId, signed, req, requestOrigin(req));
  }
}
