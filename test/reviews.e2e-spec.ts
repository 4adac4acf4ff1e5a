import { ReviewEntity } from '../src/reviews/entities/review.entity';
import { expectNoNulls } from './support/no-nulls';
import { createPublisherWithNode, PublisherFixture } from './support/registry-fixtures';
import { TestApp, TestUser, unique } from './support/test-app';

describe('Reviews', () => {
  let t: TestApp;
  let admin: TestUser;
  let f: PublisherFixture;

  beforeAll(async () => {
    t = await TestApp.start();
    admin = await t.createUser({ admin: true });
  });
  beforeEach(async () => {
    f = await createPublisherWithNode(t);
  });
  afterAll(() => t.close());

  const review = (user: TestUser, star: string | number, nodeId = f.nodeId) =>
    t.http.post(`/nodes/${nodeId}/reviews?star=${star}`).set(user.auth);

  it('requires a bearer token', async () => {
    const res = await t.http.post(`/nodes/${f.nodeId}/reviews?star=5`).expect(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
  });

  it.each(['0', '6', '4.5', 'abc', '', '-1', '1e0', '0x3'])('star=%s is 400 and records nothing', async (star) => {
    const user = await t.createUser();
    const res = await review(user, star).expect(400);
    expect(res.body.message).toContain('star must be an integer from 1 to 5');
    expect(await t.dataSource.getRepository(ReviewEntity).countBy({ nodeId: f.nodeId })).toBe(0);
  });

  it('takes no body: a field in one is 400 naming it (it would be ignored), records nothing; {} is nothing', async () => {
    const user = await t.createUser();
    const typo = await review(user, 5).send({ star: 4, comment: 'great' }).expect(400);
    expect(typo.body.message).toBe('property star should not exist; property comment should not exist');
    expect((await review(user, 5).send([5]).expect(400)).body.message).toBe('this route takes no request body');
    expect(await t.dataSource.getRepository(ReviewEntity).countBy({ nodeId: f.nodeId })).toBe(0);
    expect((await review(user, 5).send({}).expect(200)).body.rating).toBe(5);
  });

  it('a missing star is 400', async () => {
    const user = await t.createUser();
    await t.http.post(`/nodes/${f.nodeId}/reviews`).set(user.auth).expect(400);
  });

  it('returns the node with the mean rating; a second review by the same user replaces the first', async () => {
    const [ann, bob] = [await t.createUser(), await t.createUser()];
    const first = await review(ann, 5).expect(200);
    expect(first.body).toMatchObject({ id: f.nodeId, rating: 5, publisher: { id: f.publisherId } });
    expect('latest_version' in first.body).toBe(false);
    expectNoNulls(first.body);
    expect((await review(bob, 2).expect(200)).body.rating).toBe(3.5);
    expect((await review(ann, 1).expect(200)).body.rating).toBe(1.5);
    expect(await t.dataSource.getRepository(ReviewEntity).countBy({ nodeId: f.nodeId })).toBe(2);
    expect((await t.http.get(`/nodes/${f.nodeId}`).expect(200)).body.rating).toBe(1.5);
  });

  it('answers with the node as GET shows it; a repeat review keeps the review’s id and creation time', async () => {
    const user = await t.createUser();
    await t.http.post(`/publishers/${f.publisherId}/nodes/${f.nodeId}/versions`).set(f.owner.auth).send({ version: '1.0.0' }).expect(201);
    const first = await review(user, 2).expect(200);
    expect(first.body).toEqual((await t.http.get(`/nodes/${f.nodeId}`).expect(200)).body);
    const [before] = await t.dataSource.getRepository(ReviewEntity).findBy({ nodeId: f.nodeId });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await review(user, 5).expect(200);
    expect(second.body).toEqual({ ...first.body, rating: 5 });
    const [after] = await t.dataSource.getRepository(ReviewEntity).findBy({ nodeId: f.nodeId });
    expect(after).toMatchObject({ id: before.id, userId: user.id, star: 5, createdAt: before.createdAt });
    expect(after.updatedAt.getTime()).toBeGreaterThan(before.updatedAt.getTime());
  });

  it('finds the node ignoring case; unknown or deleted nodes are 404, banned nodes 403', async () => {
    const user = await t.createUser();
    await review(user, 4, f.nodeId.toUpperCase()).expect(200);
    await review(user, 4, unique('missing')).expect(404);
    const nodeUrl = `/publishers/${f.publisherId}/nodes/${f.nodeId}`;
    await t.http.put(nodeUrl).set(admin.auth).send({ status: 'NodeStatusBanned' }).expect(200);
    await review(user, 4).expect(403);
    await t.http.put(nodeUrl).set(admin.auth).send({ status: 'NodeStatusDeleted' }).expect(200);
    await review(user, 4).expect(404);
  });

  it('loses no update: 50 concurrent reviews by 50 users give exactly their mean', async () => {
    const users = await Promise.all(Array.from({ length: 50 }, () => t.createUser()));
    const stars = users.map((_, i) => (i * 7) % 5 + 1);
    const replies = await Promise.all(users.map((user, i) => review(user, stars[i])));
    expect(replies.map((r) => r.status)).toEqual(users.map(() => 200));
    const mean = stars.reduce((a, b) => a + b, 0) / stars.length;
    expect((await t.http.get(`/nodes/${f.nodeId}`).expect(200)).body.rating).toBe(mean);
    expect(await t.dataSource.getRepository(ReviewEntity).countBy({ nodeId: f.nodeId })).toBe(50);
  });

  it('concurrent repeat reviews by one user leave a single review', async () => {
    const user = await t.createUser();
    const replies = await Promise.all([1, 2, 3, 4, 5].map((star) => review(user, star)));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    const rows = await t.dataSource.getRepository(ReviewEntity).findBy({ nodeId: f.nodeId });
    expect(rows).toHaveLength(1);
    expect((await t.http.get(`/nodes/${f.nodeId}`).expect(200)).body.rating).toBe(rows[0].star);
  });
});
