import { Controller, HttpCode, Param, Post, Query } from '@nestjs/common';
import { WritesPublicContent } from '../common/http/http-caching';
import { RequestOrigin } from '../common/http/http-request';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated, CurrentUser } from '../auth/authenticated.decorator';
import { Principal } from '../auth/principal';
import { ApiErrors } from '../common/openapi/api-errors.decorator';
import { NodeDto } from '../nodes/dto/node.dto';
import { ReviewQueryDto } from './dto/review.dto';
import { ReviewsService } from './reviews.service';

@ApiTags('reviews')
// Its writes change what public reads show (see PublicReadCache).
@WritesPublicContent()
@Controller('nodes/:nodeId/reviews')
export class ReviewsController {
  constructor(private readonly reviews: ReviewsService) {}

  /** Add a review to a node. */
  @Post()
  @ApiOperation({
    description:
      '`star` is an integer from 1 to 5. One review per user per node: a second review by the same user replaces ' +
      'the first. `rating` is the exact mean of the node’s current reviews. Unknown or deleted node: 404; banned: 403.',
  })
  @ApiOkResponse({ type: NodeDto, description: 'The node with its new rating' })
  @HttpCode(200)
  @Authenticated()
  @ApiErrors(400, 403, 404)
  review(
    @CurrentUser() caller: Principal,
    @Param('nodeId') nodeId: string,
    @Query() query: ReviewQueryDto,
    @RequestOrigin() origin: string,
  ): Promise<NodeDto> {
    return this.reviews.review(caller, nodeId, query.star, origin);
  }
}
