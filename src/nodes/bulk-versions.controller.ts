import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Public } from '../auth/authenticated.decorator';
import { RequestOrigin } from '../common/http/http-request';
import { ApiErrors } from '../common/openapi/api-errors.decorator';
import { BulkNodeVersionsDto, BulkNodeVersionsRequestDto } from './dto/bulk-versions.dto';
import { NodeCatalogService } from './node-catalog.service';

/** Lookups of many versions at once, as the host app's frontend makes them for the packs installed. */
@ApiTags('nodes')
@Public()
@Controller('bulk/nodes')
export class BulkVersionsController {
  constructor(private readonly catalog: NodeCatalogService) {}

  /** The versions of 1 to 100 (node_id, version) pairs, one entry per pair in request order (a read: nothing changes). */
  @Post('versions')
  @HttpCode(200)
  @ApiErrors(400)
  versions(@Body() body: BulkNodeVersionsRequestDto, @RequestOrigin() origin: string): Promise<BulkNodeVersionsDto> {
    return this.catalog.bulkVersions(body.node_versions, origin);
  }
}
