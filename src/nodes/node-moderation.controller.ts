import { Controller, Delete, HttpCode, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Authenticated, CurrentUser } from '../auth/authenticated.decorator';
import { Principal } from '../auth/principal';
import { WritesPublicContent } from '../common/http/http-caching';
import { ApiErrors } from '../common/openapi/api-errors.decorator';
import { NodeModerationService } from './node-moderation.service';

/** Deletes by a publisher's members, bans by admins (docs/api-rules.md §10). */
@ApiTags('moderation')
// Its writes change what public reads show (see PublicReadCache).
@WritesPublicContent()
@Controller('publishers/:publisherId')
export class NodeModerationController {
  constructor(private readonly moderation: NodeModerationService) {}

  /** Deletes a version: no longer listed, installable or latest (its archive stays, so existing installs keep working). Members. */
  @Delete('nodes/:nodeId/versions/:versionId')
  @HttpCode(204)
  @Authenticated()
  @ApiErrors(403, 404)
  deleteVersion(
    @CurrentUser() caller: Principal,
    @Param('publisherId') publisherId: string,
    @Param('nodeId') nodeId: string,
    @Param('versionId') versionId: string,
  ): Promise<void> {
    return this.moderation.deleteVersion(caller, publisherId, nodeId, versionId);
  }

  /** Deletes a node: gone from every read (404); its id stays taken. Members. */
  @Delete('nodes/:nodeId')
  @HttpCode(204)
  @Authenticated()
  @ApiErrors(403, 404)
  deleteNode(@CurrentUser() caller: Principal, @Param('publisherId') publisherId: string, @Param('nodeId') nodeId: string): Promise<void> {
    return this.moderation.deleteNode(caller, publisherId, nodeId);
  }

  /** Bans a node: unlisted, and 403 "node banned" to everyone but admins. Admins. */
  @Post('nodes/:nodeId/ban')
  @HttpCode(204)
  @Authenticated({ admin: true })
  @ApiErrors(404)
  banNode(@CurrentUser() admin: Principal, @Param('publisherId') publisherId: string, @Param('nodeId') nodeId: string): Promise<void> {
    return this.moderation.banNode(admin, publisherId, nodeId);
  }

  /** Bans a publisher and all its nodes; its members' tokens are refused on its routes. Admins. */
  @Post('ban')
  @HttpCode(204)
  @Authenticated({ admin: true })
  @ApiErrors(404)
  banPublisher(@Param('publisherId') publisherId: string): Promise<void> {
    return this.moderation.banPublisher(publisherId);
  }
}
