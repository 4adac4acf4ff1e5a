import { AccessTokenEntity } from '../src/users/entities/access-token.entity';
import { UserEntity } from '../src/users/entities/user.entity';
import { expectNoNulls } from './support/no-nulls';
import { TestApp, TestUser, unique } from './support/test-app';

describe('Users, tokens and the admin API', () => {
  let t: TestApp;
  let admin: TestUser;
  let user: TestUser;

  beforeAll(async () => {
    t = await TestApp.start();
    admin = await t.createUser({ admin: true });
    user = await t.createUser();
  });
  afterAll(() => t.close());

  it('GET /users/me shows the caller', async () => {
    const res = await t.http.get('/users/me').set(user.auth).expect(200);
    expect(res.body).toEqual({ id: user.id, email: user.email, name: 'Test User', is_admin: false, credits: 0 });
    expectNoNulls(res.body);
  });

  it('tokens are shown once, stored only as a hash, and stop working when revoked', async () => {
    const created = await t.http.post('/users/me/tokens').set(user.auth).send({ name: 'ci' }).expect(201);
    expect(created.body).toEqual({ id: expect.any(String), token: expect.stringMatching(/^nrt_[A-Za-z0-9_-]{43}$/), name: 'ci', created_at: expect.any(String) });
    const token: string = created.body.token;
    const row = await t.dataSource.getRepository(AccessTokenEntity).findOneByOrFail({ id: created.body.id });
    expect(row.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(token);

    await t.http.get('/users/me').set('Authorization', `Bearer ${token}`).expect(200);
    await t.http.delete(`/users/me/tokens/${created.body.id}`).set(user.auth).expect(204);
    const revoked = await t.http.get('/users/me').set('Authorization', `Bearer ${token}`).expect(401);
    expect(revoked.body.message).toContain('revoked');
    await t.http.delete(`/users/me/tokens/${created.body.id}`).set(user.auth).expect(404);
  });

  it('cannot revoke someone else’s token', async () => {
    const other = await t.createUser();
    const { body } = await t.http.post('/users/me/tokens').set(other.auth).send({}).expect(201);
    // A token without a label has no name key (never null).
    expect(body).toEqual({ id: expect.any(String), token: expect.stringMatching(/^nrt_/), created_at: expect.any(String) });
    expectNoNulls(body);
    await t.http.delete(`/users/me/tokens/${body.id}`).set(user.auth).expect(404);
    await t.http.get('/users/me').set('Authorization', `Bearer ${body.token}`).expect(200);
  });

  it('the admin API is for admins only', async () => {
    const res = await t.http.post('/admin/users').set(user.auth).send({ email: 'x@example.com', name: 'X' }).expect(403);
    expect(res.body.message).toContain('admins');
    await t.http.post('/admin/users').send({ email: 'x@example.com', name: 'X' }).expect(401);
  });

  it('admins create users (409 on a taken e-mail, ignoring case), their tokens and credits', async () => {
    const email = `${unique('ops')}@Example.com`;
    const created = await t.http.post('/admin/users').set(admin.auth).send({ email, name: 'Ops' }).expect(201);
    expect(created.body).toEqual({ id: expect.any(String), email: email.toLowerCase(), name: 'Ops', is_admin: false, credits: 0 });
    await t.http.post('/admin/users').set(admin.auth).send({ email: email.toUpperCase(), name: 'Again' }).expect(409);
    await t.http.post('/admin/users').set(admin.auth).send({ email: 'not-an-email', name: 'x' }).expect(400);

    const token = await t.http.post(`/admin/users/${created.body.id}/tokens`).set(admin.auth).send({ name: 'bot' }).expect(201);
    expect(token.body).toEqual({ id: expect.any(String), token: expect.stringMatching(/^nrt_/), name: 'bot', created_at: expect.any(String) });
    const auth = { Authorization: `Bearer ${token.body.token}` };
    expect((await t.http.get('/users/me').set(auth).expect(200)).body.email).toBe(email.toLowerCase());
    await t.http.post('/admin/users/no-such-user/tokens').set(admin.auth).send({}).expect(404);

    const granted = await t.http.post(`/admin/users/${created.body.id}/credits`).set(admin.auth).send({ amount: 100 }).expect(200);
    expect(granted.body).toEqual({ user_id: created.body.id, balance: 100 });
    const corrected = await t.http.post(`/admin/users/${created.body.id}/credits`).set(admin.auth).send({ amount: -30 }).expect(200);
    expect(corrected.body.balance).toBe(70);
    const floored = await t.http.post(`/admin/users/${created.body.id}/credits`).set(admin.auth).send({ amount: -500 }).expect(200);
    expect(floored.body.balance).toBe(0);
    for (const amount of [1.5, '10', 0, null]) {
      await t.http.post(`/admin/users/${created.body.id}/credits`).set(admin.auth).send({ amount }).expect(400);
    }
    await t.http.post('/admin/users/no-such-user/credits').set(admin.auth).send({ amount: 5 }).expect(404);
    expect((await t.dataSource.getRepository(UserEntity).findOneByOrFail({ id: created.body.id })).credits).toBe(0);

    const ledger = await t.http.get('/users/me/ledger').set(auth).expect(200);
    expect(ledger.body).toMatchObject({ total: 3, page: 1, limit: 10, totalPages: 1 });
    expect(ledger.body.entries.map((e: { kind: string; amount: number; balance_after: number }) => [e.kind, e.amount, e.balance_after])).toEqual([
      ['grant', -70, 0],
      ['grant', -30, 70],
      ['grant', 100, 100],
    ]);
    // Grants belong to no task: the entries have no task_id key.
    expect(ledger.body.entries.filter((e: object) => 'task_id' in e)).toEqual([]);
    expectNoNulls(ledger.body);
  });

  it('refuses a grant that would take a balance past 1,000,000,000, changing nothing (PostgreSQL stored no more than 2^31 - 1)', async () => {
    const user = await t.createUser();
    const grant = (amount: number) => t.http.post(`/admin/users/${user.id}/credits`).set(admin.auth).send({ amount });
    expect((await grant(1_000_000_000).expect(200)).body.balance).toBe(1_000_000_000);
    const over = await grant(1_000_000_000).expect(400);
    expect(over.body.message).toBe('amount 1000000000 would take the balance from 1000000000 to 2000000000, over the most a balance holds (1000000000)');
    await grant(1).expect(400);
    expect((await grant(-1).expect(200)).body.balance).toBe(999_999_999);
    expect((await t.dataSource.getRepository(UserEntity).findOneByOrFail({ id: user.id })).credits).toBe(999_999_999);
    const ledger = (await t.http.get('/users/me/ledger').set(user.auth).expect(200)).body;
    expect(ledger.entries.map((e: { amount: number }) => e.amount)).toEqual([-1, 1_000_000_000]);
  });

  it('answers concurrent creations of one e-mail with one 201 and 409s', async () => {
    const email = `${unique('race')}@example.com`;
    const replies = await Promise.all([1, 2, 3, 4].map(() => t.http.post('/admin/users').set(admin.auth).send({ email, name: 'Race' })));
    expect(replies.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
  });

  it('admins create admins', async () => {
    const res = await t.http.post('/admin/users').set(admin.auth).send({ email: `${unique('root')}@example.com`, name: 'Root', is_admin: true }).expect(201);
    expect(res.body.is_admin).toBe(true);
  });
});
