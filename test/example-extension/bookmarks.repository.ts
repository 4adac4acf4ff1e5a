import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { BookmarkEntity } from './entities/bookmark.entity';

/** Data access for bookmarks: the only place that knows how they are stored. */
@Injectable()
export class BookmarksRepository {
  constructor(private readonly dataSource: DataSource) {}

  find(manager: EntityManager, userId: string, nodeId: string): Promise<BookmarkEntity | null> {
    return manager.findOne(BookmarkEntity, { where: { userId, nodeId } });
  }

  /** INSERT, not save(): save() would silently update a row a concurrent request created first. */
  async insert(manager: EntityManager, bookmark: BookmarkEntity): Promise<void> {
    await manager.insert(BookmarkEntity, bookmark);
  }

  async setNote(manager: EntityManager, userId: string, nodeId: string, note: string | null): Promise<void> {
    await manager.update(BookmarkEntity, { userId, nodeId }, { note });
  }

  /** True when a bookmark was deleted; `nodeId` in any case (node ids are ASCII, compared lower-cased). */
  async delete(manager: EntityManager, userId: string, nodeId: string): Promise<boolean> {
    const result = await manager
      .createQueryBuilder()
      .delete()
      .from(BookmarkEntity)
      .where('user_id = :userId AND LOWER(node_id) = :nodeId', { userId, nodeId: nodeId.toLowerCase() })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  listForUser(userId: string): Promise<BookmarkEntity[]> {
    return this.dataSource.manager.find(BookmarkEntity, { where: { userId }, order: { createdAt: 'DESC', nodeId: 'ASC' } });
  }
}
