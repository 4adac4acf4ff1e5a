import { Body, Controller, Param, Post, Put } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated, CurrentUser } from '../auth/authenticated.decorator';
import { Principal } from '../auth/principal';
import { ApiErrors } from '../common/openapi/api-errors.decorator';
import { CreateNodeDto, NodeDto, UpdateNodeDto } from './dto/node.dto';
import { CreateNodeVersionDto, NodeVersionDto, UpdateNodeVersionDto } from './dto/node-version.dto';
import { NodesService } from './nodes.service';

/** Routes a publisher's members (and admins) use to manage its nodes. */
@ApiTags('nodes')
@Authenticated()
@Controller('publishers/:publisherId/nodes')
export class PublisherNodesController {
  constructor(private readonly nodes: NodesService) {}

  /** Create a node owned by the publisher. */
  @Post()
  @ApiErrors(400, 403, 404, 409)
  create(
    @CurrentUser() caller: Principal,
    @Param('publisherId') publisherId: string,
    @Body() body: CreateNodeDto,
  ): Promise<NodeDto> {
    return this.nodes.create(caller, publisherId, body);
  }

  /** Update a node of a publisher. */
  @Put(':nodeId')
  @ApiOperation({
    description:
      'Partial update (JSON merge-patch): omitted fields stay, `null` clears a field, arrays are replaced whole; ' +
      '`name` cannot be cleared. Server-managed fields (`created_at`, `downloads`, `github_stars`, `rating`, ' +
      '`latest_version`, `publisher`) are accepted and ignored, so a GET → edit → PUT round trip works. ' +
      'Admin-only fields (`status`, `status_detail`, `tags_admin`, `search_ranking`, `preempted_app_node_names`) ' +
      'may be resent unchanged by others; changing one is 403. Another publisher’s node is 404; a deleted node is ' +
      '404 and a banned node 403 for non-admins. Replies with the full node, as GET /nodes/{nodeId} shows it.',
  })
  @ApiErrors(400, 403, 404)
  update(
    @CurrentUser() caller: Principal,
    @Param('publisherId') publisherId: string,
    @Param('nodeId') nodeId: string,
    @Body() body: UpdateNodeDto,
  ): Promise<NodeDto> {
    return this.nodes.update(caller, publisherId, nodeId, body);
  }

  /** Publish a new version of a node (status NodeVersionStatusActive). */
  @Post(':nodeId/versions')
  @ApiErrors(400, 403, 404, 409)
  createVersion(
    @CurrentUser() caller: Principal,
    @Param('publisherId') publisherId: string,
    @Param('nodeId') nodeId: string,
    @Body() body: CreateNodeVersionDto,
  ): Promise<NodeVersionDto> {
    return this.nodes.createVersion(caller, publisherId, nodeId, body);
  }

  /** Update changelog and deprecation status of a node version. */
  @Put(':nodeId/versions/:versionId')
  @ApiOperation({
    description:
      '`versionId` is the version’s id or its semantic version (e.g. `1.2.0`). Both body fields are optional. ' +
      'Admins may also set `status` and `status_reason` (ban, flag, restore); others get 403 for sending them. ' +
      'The version must belong to the node and the node to the publisher (404 otherwise). Deprecating the latest ' +
      'version moves the node’s `latest_version` at once.',
  })
  @ApiErrors(400, 403, 404)
  updateVersion(
    @CurrentUser() caller: Principal,
    @Param('publisherId') publisherId: string,
    @Param('nodeId') nodeId: string,
    @Param('versionId') versionId: string,
    @Body() body: UpdateNodeVersionDto,
  ): Promise<NodeVersionDto> {
    return this.nodes.updateVersion(caller, publisherId, nodeId, versionId, body);
  }
}
