import { Body, Controller, Param, Post, Put } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
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

  /** Creates a node owned by the publisher. */
  @Post()
  @ApiErrors(400, 403, 404, 409)
  create(
    @CurrentUser() caller: Principal,
    @Param('publisherId') publisherId: string,
    @Body() body: CreateNodeDto,
  ): Promise<NodeDto> {
    return this.nodes.create(caller, publisherId, body);
  }

  /**
   * Updates a node (partial: omitted fields stay, null clears, arrays are
   * replaced whole). Server-managed fields are accepted and ignored; admin-only
   * fields (status, status_detail, tags_admin, search_ranking,
   * preempted_app_node_names) may only be resent unchanged by non-admins.
   */
  @Put(':nodeId')
  @ApiErrors(400, 403, 404)
  update(
    @CurrentUser() caller: Principal,
    @Param('publisherId') publisherId: string,
    @Param('nodeId') nodeId: string,
    @Body() body: UpdateNodeDto,
  ): Promise<NodeDto> {
    return this.nodes.update(caller, publisherId, nodeId, body);
  }

  /** Publishes a new version of the node (status NodeVersionStatusActive). */
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

  /**
   * Updates the changelog and deprecation flag of a version. `versionId` is the
   * version's id or its semantic version (e.g. 1.2.0).
   */
  @Put(':nodeId/versions/:versionId')
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
