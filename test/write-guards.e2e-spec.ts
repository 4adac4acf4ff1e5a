import { ReviewEntity } from '../src/reviews/entities/review.entity';
import { NodeVersionEntity } from '../src/nodes/entities/node-version.entity';
import { NodeEntity } from '../src/nodes/entities/node.entity';
import { NodesRepository } from '../src/nodes/nodes.repository';
import { lockWaiters } from './support/postgres';
import { addVersions, createPublisherWithNode, PublisherFixture } from './support/registry-fixtures';
import { TestApp, TestUser } from './support/test-app';

/**
 * PUT node and PUT version check what they read without a lock and then
 * write with statements guarded by the status they checked (see
 * NodesService.update); POST review checks the node its lock statement read
 * (ReviewsService.review). These tests make another transaction change the
 * node between a request's read and its write: the request reads, its
 * guarded statement waits on that transaction's row lock, and the change
 * commits under it (or, for a changelog edit, which takes no node lock, the
 * change commits right after the request's last read). Only PostgreSQL has
 * row locks to wait on; SQLite runs writers one at a time.
 */
const onPostgres = process.env.TEST_DATABASE_URL ? describe : describe.skip;

onPostgres('Guarded registry writes (PostgreSQL)', () => {
  let t: TestApp;
  let reviewer: TestUser;
  let f: PublisherFixture;

  beforeAll(async () => {
    t = await TestApp.start();
    reviewer = await t.createUser();
  });
  afterAll(() => t.close());

  beforeEach(async () => {
    f = await createPublisherWithNode(t, { description: 'before' });
    await t.dataSource.query(`UPDATE nodes SET search_ranking = 3 WHERE id = $1`, [f.nodeId]);
  });

  const nodeUrl = () => `/publishers/${f.publisherId}/nodes/${f.nodeId}`;
  const storedNode = () => t.dataSource.getRepository(NodeEntity).findOneByOrFail({ id: f.nodeId });

  /**
   * Runs `statements` in a transaction that keeps the node's row locked,
   * sends `request` (which must read first and then wait on the lock), and
   * commits once the request waits; the request's response.
   */
  async function commitUnder<T>(statements: [string, unknown[]][], request: () => PromiseLike<T>): Promise<T> {
    const holder = t.dataSource.createQueryRunner();
    await holder.connect();
    await holder.startTransaction();
    try {
      for (const [sql, parameters] of statements) await holder.query(sql, parameters);
      const pending = Promise.resolve(request());
      await lockWaiters(t.dataSource, 1);
      await holder.commitTransaction();
      return await pending;
    } finally {
      if (holder.isTransactionActive) await holder.rollbackTransaction();
      await holder.release();
    }
  }

  const banNode = (): [string, unknown[]][] => [[`UPDATE nodes SET status = 'NodeStatusBanned' WHERE id = $1`, [f.nodeId]]];

  it('PUT node: a node banned between the read and the write is 403 for a member, and nothing is written', async () => {
    const res = await commitUnder(banNode(), () => t.http.put(nodeUrl()).set(f.member.auth).send({ description: 'after' }));
    expect(res.status).toBe(403);
    expect(res.body.message).toContain('banned');
    expect(await storedNode()).toMatchObject({ status: 'NodeStatusBanned', description: 'before' });
  });

  it('PUT node: an admin-only field a member resends unchanged does not undo an admin change committed in between', async () => {
    const res = await commitUnder([[`UPDATE nodes SET search_ranking = 7 WHERE id = $1`, [f.nodeId]]], () =>
      t.http.put(nodeUrl()).set(f.member.auth).send({ description: 'after', search_ranking: 3 }),
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ description: 'after', search_ranking: 7 });
    expect(await storedNode()).toMatchObject({ description: 'after', searchRanking: 7 });
  });

  it('PUT version: a node banned between the read and the write is 403 for a member, and the version is unchanged', async () => {
    await addVersions(t, f, '1.0.0');
    // A changelog edit writes only the version's row, so there is no node lock to wait on: the ban commits right
    // after the request's reads (the version is read last), before its guarded write.
    const nodes = t.app.get(NodesRepository);
    const readVersion = nodes.findVersion.bind(nodes);
    let banned = false;
    const afterRead = jest.spyOn(nodes, 'findVersion').mockImplementationOnce(async (...args) => {
      const read = await readVersion(...args);
      await t.dataSource.query(banNode()[0][0], banNode()[0][1]);
      banned = true;
      return read;
    });
    try {
      const res = await t.http.put(`${nodeUrl()}/versions/1.0.0`).set(f.member.auth).send({ changelog: 'after' });
      expect(res.status).toBe(403);
    } finally {
      afterRead.mockRestore();
    }
    expect(banned).toBe(true);
    const version = await t.dataSource.getRepository(NodeVersionEntity).findOneByOrFail({ nodeId: f.nodeId, version: '1.0.0' });
    expect(version.changelog).toBe('release 1.0.0');
  });

  it('PUT version: a version deleted between the read and the write is 404 for a member, and stays deleted', async () => {
    await addVersions(t, f, '1.0.0');
    const deleteVersion = `UPDATE node_versions SET status = 'NodeVersionStatusDeleted' WHERE node_id = $1`;
    // The version's own row is what the request waits on here: the node is not locked by the holder.
    const res = await commitUnder([[deleteVersion, [f.nodeId]]], () =>
      t.http.put(`${nodeUrl()}/versions/1.0.0`).set(f.member.auth).send({ changelog: 'after' }),
    );
    expect(res.status).toBe(404);
    const version = await t.dataSource.getRepository(NodeVersionEntity).findOneByOrFail({ nodeId: f.nodeId, version: '1.0.0' });
    expect(version).toMatchObject({ status: 'NodeVersionStatusDeleted', changelog: 'release 1.0.0' });
  });

  it('POST review: a node banned between the read and the write is 403, and no review is left', async () => {
    const res = await commitUnder(banNode(), () => t.http.post(`/nodes/${f.nodeId}/reviews?star=5`).set(reviewer.auth));
    expect(res.status).toBe(403);
    expect(await t.dataSource.getRepository(ReviewEntity).countBy({ nodeId: f.nodeId })).toBe(0);
    expect((await storedNode()).rating).toBe(0);
  });

  it('POST review: a review committed while the rating waited for the lock counts in the rating', async () => {
    const earlier = await t.createUser();
    const insertReview = `INSERT INTO reviews (id, node_id, user_id, star, created_at, updated_at) VALUES (gen_random_uuid(), $1, $2, 1, now(), now())`;
    // NO KEY UPDATE, as the service's own lock. A review insert passes it, so a request that did not lock the node
    // first would wait only at its rating statement, whose snapshot predates this review.
    const lockNode = `SELECT id FROM nodes WHERE id = $1 FOR NO KEY UPDATE`;
    const res = await commitUnder(
      [
        [lockNode, [f.nodeId]],
        [insertReview, [f.nodeId, earlier.id]],
      ],
      () => t.http.post(`/nodes/${f.nodeId}/reviews?star=5`).set(reviewer.auth),
    );
    expect(res.status).toBe(200);
    expect(res.body.rating).toBe(3);
    expect((await storedNode()).rating).toBe(3);
  });

  it('a video create whose Idempotency-Key a concurrent request claims first is told about that key, not a generic conflict', async () => {
    const user = await t.createUser({ credits: 100 });
    // The other request's claim, not committed yet: this request's insert of the same key waits on it.
    const holder = t.dataSource.createQueryRunner();
    await holder.connect();
    await holder.startTransaction();
    try {
      await holder.query(
        `INSERT INTO idempotency_keys (id, user_id, idempotency_key, request_hash, state, created_at) VALUES (gen_random_uuid(), $1, 'racing-key', $2, 'in_flight', now())`,
        [user.id, 'f'.repeat(64)],
      );
      const create = Promise.resolve(t.http.post('/proxy/video/reference2video').set(user.auth).set('Idempotency-Key', 'racing-key').send({ prompt: 'p', duration: 2 }));
      await lockWaiters(t.dataSource, 1);
      await holder.commitTransaction();
      const res = await create;
      expect([res.status, res.body.message]).toEqual([422, 'this Idempotency-Key was already used with a different request body']);
    } finally {
      if (holder.isTransactionActive) await holder.rollbackTransaction();
      await holder.release();
    }
  });

  it('a node create arriving while a publisher ban waits for the publisher does not go before it: 403, so creates cannot hold a ban off', async () => {
    const admin = await t.createUser({ admin: true });
    // A reader holding the publisher's row with a share lock, as node creates did: the ban's UPDATE waits for it.
    const holder = t.dataSource.createQueryRunner();
    await holder.connect();
    await holder.startTransaction();
    try {
      await holder.query(`SELECT id FROM publishers WHERE id = $1 FOR SHARE`, [f.publisherId]);
      const ban = Promise.resolve(t.http.post(`/publishers/${f.publisherId}/ban`).set(admin.auth));
      await lockWaiters(t.dataSource, 1);
      const create = Promise.resolve(t.http.post(`/publishers/${f.publisherId}/nodes`).set(f.owner.auth).send({ id: `${f.nodeId}-late`, name: 'Late' }));
      // The create either waits behind the ban, or (sharing the holder's lock) is answered at once.
      await Promise.race([lockWaiters(t.dataSource, 2), create]);
      await holder.commitTransaction();
      expect((await ban).status).toBe(204);
      const created = await create;
      expect([created.status, created.body.message]).toEqual([403, expect.stringContaining('banned')]);
      expect(await t.dataSource.getRepository(NodeEntity).countBy({ id: `${f.nodeId}-late` })).toBe(0);
    } finally {
      if (holder.isTransactionActive) await holder.rollbackTransaction();
      await holder.release();
    }
  });
});
