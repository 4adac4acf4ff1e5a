import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { PreparedInsert, PreparedSql } from '../database/prepared-statements';
import { ReviewEntity } from './entities/review.entity';

@Injectable()
export class ReviewsRepository {
  // One review per user and node (uq_reviews_node_user): a repeat review replaces the star and keeps the id.
  private readonly reviewUpsert = new PreparedInsert(ReviewEntity, { columns: ['nodeId', 'userId'], update: ['star', 'updatedAt'] });
  private readonly starTotalsQuery = new PreparedSql(({ driver }) => {
    const star = driver.escape('star');
    return (
      `SELECT COALESCE(SUM(${star}), 0) AS ${driver.escape('sum')}, COUNT(*) AS ${driver.escape('count')}` +
      ` FROM ${driver.escape('reviews')} WHERE ${driver.escape('node_id')} = ${driver.createParameter('nodeId', 0)}`
    );
  });

  /** Inserts the review, or replaces the star of the user's earlier review of the node. */
  async upsert(manager: EntityManager, review: ReviewEntity): Promise<void> {
    await this.reviewUpsert.run(manager, review);
  }

  /** Exact integer sum and count (PostgreSQL returns bigint aggregates as strings). */
  async starTotals(manager: EntityManager, nodeId: string): Promise<{ sum: number; count: number }> {
    const [row] = await manager.query<{ sum: string | number; count: string | number }[]>(this.starTotalsQuery.for(manager.connection), [nodeId]);
    return { sum: Number(row?.sum ?? 0), count: Number(row?.count ?? 0) };
  }
}
