import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Principal } from '../auth/principal';
import { TransactionRunner } from '../database/transaction-runner';
import { NodeDto } from '../nodes/dto/node.dto';
import { NodesService } from '../nodes/nodes.service';
import { ReviewEntity } from './entities/review.entity';
import { ReviewsRepository } from './reviews.repository';

@Injectable()
export class ReviewsService {
  constructor(
    private readonly reviews: ReviewsRepository,
    private readonly nodes: NodesService,
    private readonly tx: TransactionRunner,
  ) {}

  /**
   * Records the caller's review (replacing an earlier one) and recomputes the
   * node's rating. The node row is locked first, so concurrent reviews queue
   * on it and each recomputation sees every committed review: no lost update.
   * The reply is that locked row with its new rating, as the transaction committed it.
   */
  review(caller: Principal, nodeId: string, star: number): Promise<NodeDto> {
    return this.tx.run(async (manager) => {
      const node = await this.nodes.lockReviewableNode(manager, nodeId);
      const now = new Date();
      await this.reviews.upsert(
        manager,
        Object.assign(new ReviewEntity(), { id: randomUUID(), nodeId: node.id, userId: caller.id, star, createdAt: now, updatedAt: now }),
      );
      const { sum, count } = await this.reviews.starTotals(manager, node.id);
      return this.nodes.setRating(manager, node, count === 0 ? 0 : sum / count);
    });
  }
}
