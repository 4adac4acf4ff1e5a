import { Body, Controller, Delete, Get, HttpCode, Param, Put } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Authenticated, CurrentUser } from '../../src/auth/authenticated.decorator';
import { Principal } from '../../src/auth/principal';
import { ApiErrors } from '../../src/common/openapi/api-errors.decorator';
import { BookmarkDto, BookmarkInputDto } from './dto/bookmark.dto';
import { BookmarksService } from './bookmarks.service';

/** One call per route: the service owns the rules. */
@ApiTags('bookmarks (example extension)')
@Authenticated()
@Controller()
export class BookmarksController {
  constructor(private readonly bookmarks: BookmarksService) {}

  /** Bookmark a node (again: updates the note). */
  @Put('nodes/:nodeId/bookmark')
  @ApiOkResponse({ type: BookmarkDto })
  @ApiErrors(400, 404)
  bookmark(@CurrentUser() caller: Principal, @Param('nodeId') nodeId: string, @Body() input: BookmarkInputDto): Promise<BookmarkDto> {
    return this.bookmarks.bookmark(caller, nodeId, input);
  }

  /** Remove a bookmark. */
  @Delete('nodes/:nodeId/bookmark')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Removed' })
  @ApiErrors(404)
  remove(@CurrentUser() caller: Principal, @Param('nodeId') nodeId: string): Promise<void> {
    return this.bookmarks.remove(caller, nodeId);
  }

  /** The caller's bookmarks, newest first. */
  @Get('bookmarks')
  @ApiOkResponse({ type: [BookmarkDto] })
  list(@CurrentUser() caller: Principal): Promise<BookmarkDto[]> {
    return this.bookmarks.list(caller);
  }
}
