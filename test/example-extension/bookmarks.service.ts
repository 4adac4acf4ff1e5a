import { Injectable, NotFoundException } from '@nestjs/common';
import { Principal } from '../../src/auth/principal';
import { omitAbsent } from '../../src/common/replies/omit-absent';
import { TransactionRunner } from '../../src/database/transaction-runner';
import { NodesService } from '../../src/nodes/nodes.service';
import { BookmarkDto, BookmarkInputDto } from './dto/bookmark.dto';
import { BookmarkEntity } from './entities/bookmark.entity';
import { BookmarksRepository } from './bookmarks.repository';

function toBookmarkDto(bookmark: BookmarkEntity): BookmarkDto {
  return omitAbsent({ node_id: bookmark.nodeId, note: bookmark.note, created_at: bookmark.createdAt.toISOString() });
}

/** The rules: only visible nodes can be bookmarked; bookmarking again only updates the note. */
@Injectable()
export class BookmarksService {
  constructor(
    private readonly bookmarks: BookmarksRepository,
    private readonly nodes: NodesService,
    private readonly tx: TransactionRunner,
  ) {}

  async bookmark(caller: Principal, nodeId: string, input: BookmarkInputDto): Promise<BookmarkDto> {
    // The public read, as GET /nodes/{id} answers the caller: 404 for unknown and deleted nodes, 403 for banned
    // ones (but to admins), and the canonical spelling of the id.
    const node = await this.nodes.requireVisibleNode(nodeId, caller);
    return this.tx.run(async (manager) => {
      const existing = await this.bookmarks.find(manager, caller.id, node.id);
      if (existing) {
        if (input.note !== undefined) {
          existing.note = input.note;
          await this.bookmarks.setNote(manager, caller.id, node.id, input.note);
        }
        return toBookmarkDto(existing);
      }
      const bookmark = Object.assign(new BookmarkEntity(), { userId: caller.id, nodeId: node.id, note: input.note ?? null, createdAt: new Date() });
      await this.bookmarks.insert(manager, bookmark);
      return toBookmarkDto(bookmark);
    });
  }

  /** Not asked of the Nodes module: a bookmark of a node deleted or banned since must still be removable. */
  async remove(caller: Principal, nodeId: string): Promise<void> {
    const deleted = await this.tx.run((manager) => this.bookmarks.delete(manager, caller.id, nodeId));
    if (!deleted) {
      throw new NotFoundException(`node '${nodeId}' is not bookmarked`);
    }
  }

  async list(caller: Principal): Promise<BookmarkDto[]> {
    return (await this.bookmarks.listForUser(caller.id)).map(toBookmarkDto);
  }
}
