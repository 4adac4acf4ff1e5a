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
   * node's rating, in one transaction: the node's row lock (taken first, as
   * by every write that touches a node and rows referencing it, with the
   * read the checks need), the review, then the mean of its reviews, written
   * to the node by the nodes module. Concurrent reviews queue on the lock,
   * and each mean, read after the lock was granted, sees every committed
   * review: no lost update. The reply is read after the commit.
   */
  async review(caller: Principal, nodeId: string, star: number, origin: string): Promise<NodeDto> {
    const node = await this.tx.run(async (manager) => {
      const node = await this.nodes.lockReviewableNode(manager, nodeId);
      const now = new Date();
      await this.reviews.upsert(
        manager,
        Object.assign(new ReviewEntity(), { id: randomUUID(), nodeId: node.id, userId: caller.id, star, createdAt: now, updatedAt: now }),
      );
      await this.nodes.setRating(manager, node.id, await this.reviews.meanStar(manager, node.id));
      return node;
    });
    return this.nodes.displayAfterWrite(node.id, origin);
  }
}
