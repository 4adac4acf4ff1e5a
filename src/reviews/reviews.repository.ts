import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { PreparedFindOne, PreparedSql, PreparedUpdate } from '../database/prepared-statements';
import { ReviewEntity } from './entities/review.entity';

@Injectable()
export class ReviewsRepository {
  private readonly byNodeAndUser = new PreparedFindOne(ReviewEntity, [['nodeId', 'userId']]);
  private readonly reviewUpdate = new PreparedUpdate(ReviewEntity, ['id']);
  private readonly starTotalsQuery = new PreparedSql(({ driver }) => {
    const star = driver.escape('star');
    return (
      `SELECT COALESCE(SUM(${star}), 0) AS ${driver.escape('sum')}, COUNT(*) AS ${driver.escape('count')}` +
      ` FROM ${driver.escape('reviews')} WHERE ${driver.escape('node_id')} = ${driver.createParameter('nodeId', 0)}`
    );
  });

  findByNodeAndUser(manager: EntityManager, nodeId: string, userId: string): Promise<ReviewEntity | null> {
    return this.byNodeAndUser.run(manager, { nodeId, userId });
  }

  async insert(manager: EntityManager, review: ReviewEntity): Promise<void> {
    await manager.insert(ReviewEntity, review);
  }

  setStar(manager: EntityManager, reviewId: string, star: number, at: Date): Promise<void> {
    return this.reviewUpdate.run(manager, { id: reviewId }, { star, updatedAt: at });
  }

  /** Exact integer sum and count (PostgreSQL returns bigint aggregates as strings). */
  async starTotals(manager: EntityManager, nodeId: string): Promise<{ sum: number; count: number }> {
    const [row] = await manager.query<{ sum: string | number; count: string | number }[]>(this.starTotalsQuery.for(manager.connection), [nodeId]);
    return { sum: Number(row?.sum ?? 0), count: Number(row?.count ?? 0) };
  }
}
