import { Controller, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Authenticated, CurrentUser } from '../auth/authenticated.decorator';
import { Principal } from '../auth/principal';
import { ApiErrors } from '../common/openapi/api-errors.decorator';
import { NodeDto } from '../nodes/dto/node.dto';
import { ReviewQueryDto } from './dto/review.dto';
import { ReviewsService } from './reviews.service';

@ApiTags('reviews')
@Controller('nodes/:nodeId/reviews')
export class ReviewsController {
  constructor(private readonly reviews: ReviewsService) {}

  /** Adds (or replaces) the caller's star review; returns the node with its new rating. */
  @Post()
  @HttpCode(200)
  @Authenticated()
  @ApiErrors(400, 403, 404)
  review(
    @CurrentUser() caller: Principal,
    @Param('nodeId') nodeId: string,
    @Query() query: ReviewQueryDto,
  ): Promise<NodeDto> {
    return this.reviews.review(caller, nodeId, query.star);
  }
}
