import { Controller, Get, Param, Query, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { CacheableRead, NeverCached } from '../common/http/http-caching';
import { HttpRequest, RequestOrigin, requestOrigin } from '../common/http/http-request';
import { ApiErrors } from '../common/openapi/api-errors.decorator';
import { NoQuery } from '../common/validation/no-query.pipe';
import { InstallQueryDto, NodeDto, NodeListDto, NodeListQueryDto, NodeQueryDto, NodeSearchQueryDto, NodeVersionListQueryDto } from './dto/node.dto';
import { NodeVersionDto } from './dto/node-version.dto';
import { ONE_NODE_READ_TTL_MS } from './download-counter';
import { NodeCatalogService } from './node-catalog.service';
import { NodesService } from './nodes.service';
import { CurrentUser, PublicRead } from '../auth/authenticated.decorator';
import { Principal } from '../auth/principal';

/** Public reads of the registry. */
@ApiTags('nodes')
// The public catalog the package manager reads anonymously; admins see banned nodes (docs/api-rules.md §9, §10).
@PublicRead()
@Controller('nodes')
export class NodesController {
  constructor(
    private readonly catalog: NodeCatalogService,
    private readonly nodes: NodesService,
  ) {}

  /**
   * Active nodes, ordered by search_ranking (highest first), then downloads, then id, unless `sort` says otherwise;
   * filtered by search, ids, change time and platform; with `comfyui_version`/`form_factor`, each node's
   * `latest_version` is the one that app should install.
   */
  @Get()
  @CacheableRead({ latestParam: true })
  @ApiErrors(400)
  list(@Query() query: NodeListQueryDto, @RequestOrigin() origin: string, @CurrentUser() caller?: Principal): Promise<NodeListDto> {
    return this.catalog.list(query, origin, caller);
  }

  /**
   * Search, by relevance: an exact id or name first, then names that start with the term, then names with a word
   * that does, then the rest. A term of 4 or more characters that matches nothing returns the nodes whose id or
   * name is close to it instead (typos), closest first.
   */
  @Get('search')
  @CacheableRead({ latestParam: true })
  @ApiErrors(400)
  search(@Query() query: NodeSearchQueryDto, @RequestOrigin() origin: string, @CurrentUser() caller?: Principal): Promise<NodeListDto> {
    return this.catalog.search(query, origin, caller);
  }

  /** Detailed information about a node, with its publisher and latest version. A banned node is 403 "node banned" but for admins. */
  @Get(':nodeId')
  @CacheableRead({ serverTtlMs: ONE_NODE_READ_TTL_MS })
  @ApiErrors(400, 403, 404)
  get(
    @Param('nodeId') nodeId: string,
    @Query() _query: NodeQueryDto,
    @RequestOrigin() origin: string,
    @CurrentUser() caller?: Principal,
  ): Promise<NodeDto> {
    return this.nodes.get(nodeId, origin, caller);
  }

  /** The node's versions, newest semantic version first (deleted versions are not shown unless asked for by `statuses`). */
  @Get(':nodeId/versions')
  @CacheableRead()
  @ApiErrors(400, 403, 404)
  listVersions(
    @Param('nodeId') nodeId: string,
    @Query() query: NodeVersionListQueryDto,
    @RequestOrigin() origin: string,
    @CurrentUser() caller?: Principal,
  ): Promise<NodeVersionDto[]> {
    return this.nodes.listVersions(nodeId, query.statuses, origin, caller);
  }

  /** One version of a node, by its id or its semantic version (e.g. `1.2.0`). */
  @Get(':nodeId/versions/:versionId')
  @CacheableRead()
  @ApiErrors(400, 403, 404)
  getVersion(
    @Param('nodeId') nodeId: string,
    @Param('versionId') versionId: string,
    @Query(NoQuery) _query: Record<string, never>,
    @RequestOrigin() origin: string,
    @CurrentUser() caller?: Principal,
  ): Promise<NodeVersionDto> {
    return this.nodes.getVersion(nodeId, versionId, origin, caller);
  }

  /** The version to install, with its downloadUrl; counts one download. */
  @Get(':nodeId/install')
  @NeverCached()
  @ApiOperation({
    description:
      'The node’s `latest_version` (chosen for `comfyui_version` and `form_factor` when given), or the version given ' +
      'by `version`, with its `downloadUrl`. 404 when the node or ' +
      'version does not exist, is not installable (only active versions are) or has no archive; 403 "node banned" for a ' +
      'banned node (but for admins). Each 200 counts ' +
      'one download on the node (visible in `downloads` within 2 seconds); a HEAD counts none. Never cached.',
  })
  @ApiErrors(400, 403, 404)
  install(@Param('nodeId') nodeId: string, @Query() query: InstallQueryDto, @Req() req: HttpRequest): Promise<NodeVersionDto> {
    // A HEAD (answered by this route too) looks, it does not download.
    return this.nodes.install(nodeId, query, requestOrigin(req), req.user, { countDownload: req.method === 'GET' });
  }
}
