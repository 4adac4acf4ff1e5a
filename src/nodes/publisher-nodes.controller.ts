import { Body, Controller, Get, HttpCode, Param, Post, Put, Query, Req } from '@nestjs/common';
import { CacheableRead, WritesPublicContent } from '../common/http/http-caching';
import { IncomingMessage } from 'node:http';
import { ApiBody, ApiConsumes, ApiCreatedResponse, ApiExtraModels, ApiOperation, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { Authenticated, CurrentUser, PublicRead } from '../auth/authenticated.decorator';
import { Principal } from '../auth/principal';
import { RequestOrigin, requestOrigin } from '../common/http/http-request';
import { RawBody } from '../common/http/json-body-limits';
import { ApiErrors } from '../common/openapi/api-errors.decorator';
import { CreateNodeDto, NodeDto, PublisherNodesQueryDto, UpdateNodeDto } from './dto/node.dto';
import { CreateNodeVersionDto, NodeVersionDto, UpdateNodeVersionDto } from './dto/node-version.dto';
import { PublishedNodeVersionDto, PublishNodeVersionDto } from './dto/publish.dto';
import { NodePublishingService } from './node-publishing.service';
import { NodesService } from './nodes.service';
import { PublishBodyPipe } from './publish-body.pipe';

/** An archive body, as Swagger UI should offer it (a file). */
const ZIP_BODY = { schema: { type: 'string', format: 'binary' } } as const;

/** Routes a publisher's members (and admins) use to manage its nodes. */
@ApiTags('nodes')
// Its writes change what public reads show (see PublicReadCache).
@WritesPublicContent()
@Controller('publishers/:publisherId/nodes')
export class PublisherNodesController {
  constructor(
    private readonly nodes: NodesService,
    private readonly publishing: NodePublishingService,
  ) {}

  /** The publisher's nodes that are not deleted, newest first (banned ones too for its members and admins who ask). */
  @Get()
  @PublicRead()
  @CacheableRead()
  @ApiErrors(400, 404)
  list(
    @Param('publisherId') publisherId: string,
    @Query() query: PublisherNodesQueryDto,
    @RequestOrigin() origin: string,
    @CurrentUser() caller?: Principal,
  ): Promise<NodeDto[]> {
    return this.nodes.listPublisherNodes(publisherId, origin, caller, query.include_banned === true);
  }

  /** Create a node owned by the publisher. */
  @Post()
  @Authenticated()
  @ApiErrors(400, 403, 404, 409)
  create(
    @CurrentUser() caller: Principal,
    @Param('publisherId') publisherId: string,
    @Body() body: CreateNodeDto,
    @RequestOrigin() origin: string,
  ): Promise<NodeDto> {
    return this.nodes.create(caller, publisherId, body, origin);
  }

  /** Update a node of a publisher. */
  @Put(':nodeId')
  @Authenticated()
  @ApiOperation({
    description:
      'Partial update (JSON merge-patch): omitted fields stay, `null` clears a field, arrays are replaced whole, ' +
      '`translations` is merged into the stored object (a member set to `null` is removed); ' +
      '`name` cannot be cleared. Server-managed fields (`created_at`, `downloads`, `github_stars`, `rating`, ' +
      '`latest_version`, `publisher`) are accepted and ignored, so a GET → edit → PUT round trip works. ' +
      'Admin-only fields (`status`, `status_detail`, `tags_admin`, `search_ranking`, `preempted_app_node_names`) ' +
      'may be resent unchanged by others; changing one is 403. Another publisher’s node is 404; a deleted node is ' +
      '404 and a banned node 403 for non-admins. 409 when a concurrent write changed the node meanwhile (retry). ' +
      'Replies with the full node, as GET /nodes/{nodeId} shows it.',
  })
  @ApiErrors(400, 403, 404, 409)
  update(
    @CurrentUser() caller: Principal,
    @Param('publisherId') publisherId: string,
    @Param('nodeId') nodeId: string,
    @Body() body: UpdateNodeDto,
    @RequestOrigin() origin: string,
  ): Promise<NodeDto> {
    return this.nodes.update(caller, publisherId, nodeId, body, origin);
  }

  /** Publish a new version of a node: with a bearer token, or as the public registry's publishing CLI does. */
  @Post(':nodeId/versions')
  @Authenticated({ optional: true })
  @ApiOperation({
    description:
      'Two request bodies. **Bearer form** (`Authorization: Bearer`): `{version, changelog?, dependencies?, …}` → 201 ' +
      'NodeVersion, active at once (add an archive with PUT …/versions/{versionId}/archive). **CLI form** (no ' +
      'Authorization header; the public registry’s publishing CLI): `{personal_access_token, node: {…}, node_version: ' +
      '{…}}`. The token authenticates exactly as a bearer token; the node is created when missing or its given fields ' +
      'applied as a merge-patch (`node.id` must match the path; another publisher’s id is 409); the version starts ' +
      '`NodeVersionStatusPending` → 201 `{node_version, signedUrl}`. `PUT` the zip to `signedUrl` (Content-Type: ' +
      'application/zip, once, within an hour) to make it active and installable. In `node` and `node_version`, ' +
      '`supported_comfyui_version` and `supported_comfyui_frontend_version` are accepted as aliases of ' +
      '`supported_app_version` and `supported_app_frontend_version` (both given and different: 400); in the CLI form an ' +
      'empty string or list in these and `supported_os`, `supported_accelerators`, `banner_url` means not given. ' +
      'An unknown or revoked `personal_access_token` is 401, as a bearer token is.',
  })
  @ApiExtraModels(CreateNodeVersionDto, PublishNodeVersionDto, NodeVersionDto, PublishedNodeVersionDto)
  @ApiBody({
    schema: { oneOf: [{ $ref: getSchemaPath(CreateNodeVersionDto) }, { $ref: getSchemaPath(PublishNodeVersionDto) }] },
  })
  @ApiCreatedResponse({
    description: 'The bearer form: the active version. The CLI form: the pending version and where to upload its archive.',
    schema: { oneOf: [{ $ref: getSchemaPath(NodeVersionDto) }, { $ref: getSchemaPath(PublishedNodeVersionDto) }] },
  })
  // Its 401 comes with @Authenticated; the description says what it means for the CLI form.
  @ApiErrors(400, 403, 404, 409)
  createVersion(
    @CurrentUser() caller: Principal | undefined,
    @Param('publisherId') publisherId: string,
    @Param('nodeId') nodeId: string,
    @Body(PublishBodyPipe) body: CreateNodeVersionDto | PublishNodeVersionDto,
    @RequestOrigin() origin: string,
  ): Promise<NodeVersionDto | PublishedNodeVersionDto> {
    return this.publishing.createVersion(caller, publisherId, nodeId, body, origin);
  }

  /** Update changelog and deprecation status of a node version. */
  @Put(':nodeId/versions/:versionId')
  @Authenticated()
  @ApiOperation({
    description:
      '`versionId` is the version’s id or its semantic version (e.g. `1.2.0`). Both body fields are optional. ' +
      'Admins may also set `status` and `status_reason` (ban, flag, restore); others get 403 for sending them. ' +
      'The version must belong to the node and the node to the publisher (404 otherwise). Deprecating the latest ' +
      'version moves the node’s `latest_version` at once. An admin’s status is 409 for a version blocked by its ' +
      'checks or still being checked.',
  })
  @ApiErrors(400, 403, 404, 409)
  updateVersion(
    @CurrentUser() caller: Principal,
    @Param('publisherId') publisherId: string,
    @Param('nodeId') nodeId: string,
    @Param('versionId') versionId: string,
    @Body() body: UpdateNodeVersionDto,
    @RequestOrigin() origin: string,
  ): Promise<NodeVersionDto> {
    return this.nodes.updateVersion(caller, publisherId, nodeId, versionId, body, origin);
  }

  /** Upload (or replace) a version's archive; the version is pending until its checks decide (docs/api-rules.md §10). */
  @Put(':nodeId/versions/:versionId/archive')
  // The zip streams to storage as it arrives (ArchivesService.receive).
  @RawBody()
  @HttpCode(200)
  @Authenticated()
  @ApiOperation({
    description:
      'The body is the zip itself (Content-Type: application/zip, at most ARCHIVE_MAX_BYTES). The version’s ' +
      '`downloadUrl` then points at `/archives/{sha256}.zip`, and the version is pending (not installable, not the ' +
      'latest, even if it was) until its checks decide, within seconds: active, or flagged with the findings named ' +
      '(GET …/review). Not a zip: 400; too large: 413; a deleted version, a version its checks blocked, or (but for ' +
      'admins) a flagged one: 409.',
  })
  @ApiConsumes('application/zip')
  @ApiBody(ZIP_BODY)
  @ApiErrors(400, 403, 404, 409, 413, 415)
  uploadArchive(
    @CurrentUser() caller: Principal,
    @Param('publisherId') publisherId: string,
    @Param('nodeId') nodeId: string,
    @Param('versionId') versionId: string,
    @Req() req: IncomingMessage,
  ): Promise<NodeVersionDto> {
    return this.publishing.uploadAsMember(caller, publisherId, nodeId, versionId, req, requestOrigin(req));
  }
}
