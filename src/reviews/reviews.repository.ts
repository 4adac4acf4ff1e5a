import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ReviewEntity } from './entities/review.entity';

@Injectable()
export class ReviewsRepository {
  /** Inserts the review, or replaces the star of the user's earlier review of the node (uq_reviews_node_user), keeping its id. */
  async upsert(manager: EntityManager, review: ReviewEntity): Promise<void> {
    await manager.createQueryBuilder().insert().into(ReviewEntity).values(review).orUpdate(['star', 'updated_at'], ['node_id', 'user_id']).execute();
  }

  /**
   * The mean of the node's reviews' stars (0 with none), divided here so it is
   * exactly JavaScript's division. On PostgreSQL the caller holds the node's
   * row lock, so this read sees every review committed before it.
   */
  async meanStar(manager: EntityManager, nodeId: string): Promise<number> {
    const row = await manager
      .createQueryBuilder(ReviewEntity, 'review')
      .select('SUM(review.star)', 'sum')
      .addSelect('COUNT(*)', 'count')
      .where('review.nodeId = :nodeId', { nodeId })
      .getRawOne<{ sum: string | number | null; count: string | number }>();
    const count = Number(row?.count ?? 0);
    return count === 0 ? 0 : Number(row?.sum) / count;
  }
}
