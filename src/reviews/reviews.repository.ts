import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { PreparedInsert, PreparedSql, queryRows } from '../database/prepared-statements';
import { NodeEntity } from '../nodes/entities/node.entity';
import { ReviewEntity } from './entities/review.entity';

@Injectable()
export class ReviewsRepository {
  // One review per user and node (uq_reviews_node_user): a repeat review replaces the star and keeps the id.
  private readonly reviewUpsert = new PreparedInsert(ReviewEntity, { columns: ['nodeId', 'userId'], update: ['star', 'updatedAt'] });
  /**
   * The node's rating set to the mean of its reviews' stars by the statement
   * itself (the sum as a double divided by the count, as exact as dividing
   * in JavaScript), if its status is still the one the caller checked.
   */
  private readonly ratingUpdate = new PreparedSql((dataSource) => {
    const { driver } = dataSource;
    const name = (identifier: string) => driver.escape(identifier);
    const double = dataSource.options.type === 'postgres' ? 'DOUBLE PRECISION' : 'REAL';
    const mean =
      `SELECT COALESCE(CAST(SUM(${name('star')}) AS ${double}) / NULLIF(COUNT(*), 0), 0)` +
      ` FROM ${name('reviews')} WHERE ${name('node_id')} = ${driver.createParameter('nodeId', 0)}`;
    return (
      `UPDATE ${name('nodes')} SET ${name('rating')} = (${mean})` +
      ` WHERE ${name('id')} = ${driver.createParameter('id', 1)} AND ${name('status')} = ${driver.createParameter('status', 2)}` +
      ` RETURNING ${name('id')}`
    );
  });

  /** Inserts the review, or replaces the star of the user's earlier review of the node. */
  async upsert(manager: EntityManager, review: ReviewEntity): Promise<void> {
    await this.reviewUpsert.run(manager, review);
  }

  /**
   * Recomputes the node's rating from its reviews; false when its status is
   * no longer `node.status` (nothing written). On PostgreSQL the caller holds
   * the node's row lock, so this statement's snapshot has every review
   * committed before it.
   */
  async recomputeRating(manager: EntityManager, node: Pick<NodeEntity, 'id' | 'status'>): Promise<boolean> {
    const written = await queryRows(manager, this.ratingUpdate.for(manager.connection), [node.id, node.id, node.status]);
    return written.length > 0;
  }
}
