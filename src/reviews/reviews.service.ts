import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Principal } from '../auth/principal';
import { retryOnStaleRead, StaleReadError } from '../database/stale-read';
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
   * by every write that touches a node and rows referencing it), the review,
   * then the mean of its reviews, written to the node by the nodes module.
   * Concurrent reviews queue on the lock for those statements and the commit
   * (the checks ran before, unlocked), and each mean, read after the lock was
   * granted, sees every committed review: no lost update. The rating write
   * is guarded by the status the checks read (redone from the read if it
   * changed). The reply is read after the commit.
   */
  review(caller: Principal, nodeId: string, star: number): Promise<NodeDto> {
    return retryOnStaleRead(async () => {
      const node = await this.nodes.reviewableNode(nodeId);
      await this.tx.run(async (manager) => {
        await this.nodes.lockNode(manager, node);
        const now = new Date();
        await this.reviews.upsert(
          manager,
          Object.assign(new ReviewEntity(), { id: randomUUID(), nodeId: node.id, userId: caller.id, star, createdAt: now, updatedAt: now }),
        );
        const rating = await this.reviews.meanStar(manager, node.id);
        if (!(await this.nodes.setRating(manager, node, rating))) throw new StaleReadError(`node '${node.id}'`);
      });
      return this.nodes.displayAfterWrite(node.id);
    });
  }
}
