import { Body, Controller, Get, Param, Put, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Authenticated, CurrentUser } from '../../auth/authenticated.decorator';
import { Principal } from '../../auth/principal';
import { WritesPublicContent } from '../../common/http/http-caching';
import { RequestOrigin } from '../../common/http/http-request';
import { ApiErrors } from '../../common/openapi/api-errors.decorator';
import { NoQuery } from '../../common/validation/no-query.pipe';
import { NodeVersionDto } from '../dto/node-version.dto';
import { AdminVersionDecisionDto, ReviewQueueDto, ReviewQueueQueryDto, VersionReviewDto } from './dto/version-review.dto';
import { VersionReviewService } from './version-review.service';

/** The review lifecycle (docs/api-rules.md §10): a version's review record, the admins' queue and decisions. */
@ApiTags('review')
// Decisions change what public reads show (see PublicReadCache).
@WritesPublicContent()
@Controller()
export class VersionReviewController {
  constructor(private readonly reviews: VersionReviewService) {}

  /** Why a version has its status: the findings of its archive's checks (file, line, code, message) and every status change. Members and admins. */
  @Get('publishers/:publisherId/nodes/:nodeId/versions/:versionId/review')
  @Authenticated()
  @ApiErrors(400, 403, 404)
  review(
    @CurrentUser() caller: Principal,
    @Param('publisherId') publisherId: string,
    @Param('nodeId') nodeId: string,
    @Param('versionId') versionId: string,
    @Query(NoQuery) _query: Record<string, never>,
  ): Promise<VersionReviewDto> {
    return this.reviews.reviewRecord(caller, publisherId, nodeId, versionId);
  }

  /** The review queue: versions with the statuses asked for (flagged ones by default), oldest first. Admins. */
  @Get('versions')
  @Authenticated({ admin: true })
  @ApiErrors(400)
  queue(@Query() query: ReviewQueueQueryDto, @RequestOrigin() origin: string): Promise<ReviewQueueDto> {
    return this.reviews.queue(query, origin);
  }

  /**
   * An admin's decision on a version, with the reason the publisher will read (required but for active). A version
   * its checks blocked cannot be made active (409): only a new version replaces it. Admins.
   */
  @Put('admin/nodes/:nodeId/versions/:version')
  @Authenticated({ admin: true })
  @ApiErrors(400, 404, 409)
  decide(
    @CurrentUser() admin: Principal,
    @Param('nodeId') nodeId: string,
    @Param('version') version: string,
    @Body() body: AdminVersionDecisionDto,
    @RequestOrigin() origin: string,
  ): Promise<NodeVersionDto> {
    return this.reviews.decide(admin, nodeId, version, body, origin);
  }
}
