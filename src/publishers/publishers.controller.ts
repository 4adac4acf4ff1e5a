import { Body, Controller, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Authenticated, CurrentUser, PublicRead } from '../auth/authenticated.decorator';
import { Principal } from '../auth/principal';
import { CacheableRead, WritesPublicContent } from '../common/http/http-caching';
import { ApiErrors } from '../common/openapi/api-errors.decorator';
import { NoQuery } from '../common/validation/no-query.pipe';
import { AddMemberDto, CreatePublisherDto, PublisherDto, PublisherMemberDto, UpdatePublisherDto } from './dto/publisher.dto';
import { PublishersService } from './publishers.service';

@ApiTags('publishers')
// Its writes change what public reads show (see PublicReadCache).
@WritesPublicContent()
@Controller('publishers')
export class PublishersController {
  constructor(private readonly publishers: PublishersService) {}

  /** Creates a publisher; the caller becomes its owner. */
  @Post()
  @Authenticated()
  @ApiErrors(400, 409)
  create(@CurrentUser() caller: Principal, @Body() body: CreatePublisherDto): Promise<PublisherDto> {
    return this.publishers.create(caller, body);
  }

  /** A publisher and its members. Member e-mails are shown only to its members and to admins. */
  @Get(':publisherId')
  @PublicRead()
  @CacheableRead()
  @ApiErrors(400, 403, 404)
  get(@Param('publisherId') publisherId: string, @Query(NoQuery) _query: Record<string, never>, @CurrentUser() viewer?: Principal): Promise<PublisherDto> {
    return this.publishers.get(publisherId, viewer);
  }

  /**
   * Updates the publisher (owners and admins only) as a JSON merge-patch: an
   * omitted field stays, null clears it (not `name`). Server-managed fields
   * (`createdAt`, `members`, `status`) are accepted and ignored, so a GET →
   * edit → PUT round trip works; a body `id` must equal the path's. The reply
   * is GET /publishers/{publisherId}'s.
   */
  @Put(':publisherId')
  @Authenticated()
  @ApiErrors(400, 403, 404)
  update(
    @CurrentUser() caller: Principal,
    @Param('publisherId') publisherId: string,
    @Body() body: UpdatePublisherDto,
  ): Promise<PublisherDto> {
    return this.publishers.update(caller, publisherId, body);
  }

  /** Adds a member (owners and admins only). */
  @Post(':publisherId/members')
  @Authenticated()
  @ApiErrors(400, 403, 404, 409)
  addMember(
    @CurrentUser() caller: Principal,
    @Param('publisherId') publisherId: string,
    @Body() body: AddMemberDto,
  ): Promise<PublisherMemberDto> {
    return this.publishers.addMember(caller, publisherId, body);
  }
}
