import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated, CurrentUser, Public, PublicRead } from '../../auth/authenticated.decorator';
import { Principal } from '../../auth/principal';
import { CacheableRead, WritesPublicContent } from '../../common/http/http-caching';
import { RequestOrigin } from '../../common/http/http-request';
import { JsonBody, MIB } from '../../common/http/json-body-limits';
import { ApiErrors } from '../../common/openapi/api-errors.decorator';
import { PageQueryDto } from '../../common/pagination/page-query.dto';
import { NoQuery } from '../../common/validation/no-query.pipe';
import { NodeDto } from '../dto/node.dto';
import { ONE_NODE_READ_TTL_MS } from '../download-counter';
import { ComfyNodesService } from './comfy-nodes.service';
import { ComfyNodeListDto, CreateComfyNodesDto, MAX_CLASSES_PER_VERSION } from './dto/comfy-node.dto';

/**
 * A report of up to MAX_CLASSES_PER_VERSION classes (more are refused while
 * the body streams, before its validation walks each class): each a dozen
 * values and, at most, an `input_types` text of 100,000 characters and an
 * `output_is_list` of 1,000 (the default limits would refuse a large pack's
 * report).
 */
const REPORT_BODY_LIMITS = { maxBytes: 8 * MIB, maxDepth: 8, maxValues: 50_000, maxArrayElements: 1000, maxObjectMembers: MAX_CLASSES_PER_VERSION };

/** Node classes ("comfy nodes", docs/api-rules.md §9.3). */
@ApiTags('comfy-nodes')
@Controller()
export class ComfyNodesController {
  constructor(private readonly comfyNodes: ComfyNodesService) {}

  /** The node classes a version provides, ordered by name. */
  @Get('nodes/:nodeId/versions/:version/comfy-nodes')
  // Admins see a banned node's classes, as they see its versions (docs/api-rules.md §10).
  @PublicRead()
  @CacheableRead()
  @ApiOperation({
    description:
      '`version` is the semantic version (e.g. `1.2.0`) or the version’s id. `input_types`, `return_types` and ' +
      '`return_names` are strings holding JSON text (`"[\\"IMAGE\\"]"`). 404 for an unknown or deleted node or version; ' +
      '403 "node banned" for a banned node (but for admins).',
  })
  @ApiErrors(400, 403, 404)
  list(
    @Param('nodeId') nodeId: string,
    @Param('version') version: string,
    @Query() query: PageQueryDto,
    @CurrentUser() caller?: Principal,
  ): Promise<ComfyNodeListDto> {
    return this.comfyNodes.list(nodeId, version, query, caller);
  }

  /** The node that provides a node class. */
  @Get('comfy-nodes/:comfyNodeName/node')
  @Public()
  // One node, as GET /nodes/{id} shows it: its downloads, and the choice made by them, within 2 s.
  @CacheableRead({ serverTtlMs: ONE_NODE_READ_TTL_MS })
  @ApiOperation({
    description:
      'Among the listed nodes whose latest version provides the class (exact name), the one that names it in ' +
      '`preempted_app_node_names`, else the first in the listing’s order (search_ranking, downloads, id). 404 when none does.',
  })
  @ApiErrors(400, 404)
  nodeProviding(
    @Param('comfyNodeName') name: string,
    @Query(NoQuery) _query: Record<string, never>,
    @RequestOrigin() origin: string,
  ): Promise<NodeDto> {
    return this.comfyNodes.nodeProviding(name, origin);
  }

  /** Report a version's node classes (the node's publisher members and admins). */
  @Post('nodes/:nodeId/versions/:version/comfy-nodes')
  @Authenticated()
  @WritesPublicContent()
  @HttpCode(204)
  @JsonBody(REPORT_BODY_LIMITS)
  @ApiOperation({
    description:
      'Replaces the version’s node classes with `nodes` (keyed by class name; at most 1,000) and sets its ' +
      '`app_node_extract_status`: `status` when given, else `failed` for `success: false`, else `success`; `reason` ' +
      'is kept when it failed. Overrides what the extraction from the archive found, and an extraction still running ' +
      'does not overwrite it. `cloud_build_info` and each class’s `policy` are accepted and not stored. Bodies up to ' +
      '8 MiB (50,000 JSON values, depth 8) are accepted; beyond that, 413.',
  })
  @ApiNoContentResponse({ description: 'The version’s classes were replaced.' })
  @ApiErrors(400, 403, 404, 413)
  report(
    @CurrentUser() caller: Principal,
    @Param('nodeId') nodeId: string,
    @Param('version') version: string,
    @Body() body: CreateComfyNodesDto,
  ): Promise<void> {
    return this.comfyNodes.report(caller, nodeId, version, body);
  }
}
