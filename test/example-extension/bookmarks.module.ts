import { Module } from '@nestjs/common';
import { AppExtension } from '../../src/app.module';
import { NodesModule } from '../../src/nodes/nodes.module';
import { BookmarksController } from './bookmarks.controller';
import { BookmarksRepository } from './bookmarks.repository';
import { BookmarksService } from './bookmarks.service';
import { BookmarkEntity } from './entities/bookmark.entity';
import { Bookmarks1764100000000 } from './migrations/1764100000000-bookmarks';

@Module({
  imports: [NodesModule],
  controllers: [BookmarksController],
  providers: [BookmarksService, BookmarksRepository],
})
export class BookmarksModule {}

/** Everything the application needs to mount the feature: pass it to createApp({ extensions }). */
export const BOOKMARKS_EXTENSION: AppExtension = {
  module: BookmarksModule,
  entities: [BookmarkEntity],
  migrations: [Bookmarks1764100000000],
};
