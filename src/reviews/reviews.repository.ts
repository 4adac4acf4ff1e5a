import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ReviewEntity } from './entities/review.entity';

@Injectable()
export class ReviewsRepository {
  findByNodeAndUser(manager: EntityManager, nodeId: string, userId: string): Promise<ReviewEntity | null> {
    return manager.findOne(ReviewEntity, { where: { nodeId, userId } });
  }

  async insert(manager: EntityManager, review: ReviewEntity): Promise<void> {
    await manager.insert(ReviewEntity, review);
  }

  async setStar(manager: EntityManager, reviewId: string, star: number, at: Date): Promise<void> {
    await manager.update(ReviewEntity, { id: reviewId }, { star, updatedAt: at });
  }

  /** Exact integer sum and count (PostgreSQL returns bigint aggregates as strings). */
  async starTotals(manager: EntityManager, nodeId: string): Promise<{ sum: number; count: number }> {
    const row = await manager
      .createQueryBuilder(ReviewEntity, 'review')
      .select('COALESCE(SUM(review.star), 0)', 'sum')
      .addSelect('COUNT(*)', 'count')
      .where('review.node_id = :nodeId', { nodeId })
      .getRawOne<{ sum: string | number; count: string | number }>();
    return { sum: Number(row?.sum ?? 0), count: Number(row?.count ?? 0) };
  }
}
