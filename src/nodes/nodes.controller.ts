import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/openapi/api-errors.decorator';
import { NodeDto, NodeListDto, NodeListQueryDto } from './dto/node.dto';
import { NodeVersionDto } from './dto/node-version.dto';
import { NodesService } from './nodes.service';

/** Public reads of the registry. */
@ApiTags('nodes')
@Controller('nodes')
export class NodesController {
  constructor(private readonly nodes: NodesService) {}

  /** Active nodes, ordered by search_ranking (highest first), then downloads, then id. */
  @Get()
  @ApiErrors(400)
  list(@Query() query: NodeListQueryDto): Promise<NodeListDto> {
    return this.nodes.list(query);
  }

  /** Detailed information about a node, with its publisher and latest version. */
  @Get(':nodeId')
  @ApiErrors(404)
  get(@Param('nodeId') nodeId: string): Promise<NodeDto> {
    return this.nodes.get(nodeId);
  }

  /** The node's versions, newest semantic version first (deleted versions are not shown). */
  @Get(':nodeId/versions')
  @ApiErrors(404)
  listVersions(@Param('nodeId') nodeId: string): Promise<NodeVersionDto[]> {
    return this.nodes.listVersions(nodeId);
  }
}
