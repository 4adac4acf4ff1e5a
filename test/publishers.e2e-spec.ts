import { expectNoNulls } from './support/no-nulls';
import { TestApp, TestUser, unique } from './support/test-app';

describe('Publishers', () => {
  let t: TestApp;
  let owner: TestUser;
  let member: TestUser;
  let outsider: TestUser;
  let admin: TestUser;
  const publisherId = unique('pub');

  beforeAll(async () => {
    t = await TestApp.start();
    [owner, member, outsider, admin] = await Promise.all([
      t.createUser(),
      t.createUser(),
      t.createUser(),
      t.createUser({ admin: true }),
    ]);
  });
  afterAll(() => t.close());

  it('creates a publisher whose creator is its owner', async () => {
    const res = await t.http
      .post('/publishers')
      .set(owner.auth)
      .send({ id: publisherId, name: 'Acme', website: 'https://acme.example' })
      .expect(201);
    expect(res.body).toMatchObject({ id: publisherId, name: 'Acme', website: 'https://acme.example' });
    expect(['description', 'support', 'source_code_repo', 'logo'].filter((key) => key in res.body)).toEqual([]);
    expectNoNulls(res.body);
    expect(res.body.createdAt).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
    expect(res.body.members).toEqual([{ id: expect.any(String), role: 'owner', user: { id: owner.id, name: 'Test User', email: owner.email } }]);
  });

  it('rejects a taken id with 409, a malformed one with 400 and anonymous callers with 401', async () => {
    await t.http.post('/publishers').set(outsider.auth).send({ id: publisherId, name: 'Again' }).expect(409);
    for (const id of ['Upper', '1starts-with-digit', 'has_underscore', 'a'.repeat(65)]) {
      await t.http.post('/publishers').set(outsider.auth).send({ id, name: 'x' }).expect(400);
    }
    await t.http.post('/publishers').send({ id: unique('pub'), name: 'x' }).expect(401);
  });

  it('lets only owners and admins add members', async () => {
    await t.http
      .post(`/publishers/${publisherId}/members`)
      .set(owner.auth)
      .send({ user_id: member.id, role: 'member' })
      .expect(201);
    const byMember = await t.http
      .post(`/publishers/${publisherId}/members`)
      .set(member.auth)
      .send({ user_id: outsider.id, role: 'member' })
      .expect(403);
    expect(byMember.body.message).toContain('owner');
    await t.http
      .post(`/publishers/${publisherId}/members`)
      .set(outsider.auth)
      .send({ user_id: outsider.id, role: 'owner' })
      .expect(403);
    await t.http
      .post(`/publishers/${publisherId}/members`)
      .set(owner.auth)
      .send({ user_id: member.id, role: 'member' })
      .expect(409);
    await t.http
      .post(`/publishers/${publisherId}/members`)
      .set(owner.auth)
      .send({ user_id: 'no-such-user', role: 'member' })
      .expect(404);
    await t.http
      .post(`/publishers/${publisherId}/members`)
      .set(owner.auth)
      .send({ user_id: outsider.id, role: 'boss' })
      .expect(400);
    await t.http.post(`/publishers/${unique('missing')}/members`).set(admin.auth).send({ user_id: outsider.id, role: 'member' }).expect(404);
  });

  it('validates publisher URLs but takes support as free text', async () => {
    for (const field of ['website', 'logo', 'source_code_repo']) {
      const res = await t.http.post('/publishers').set(outsider.auth).send({ id: unique('pub'), name: 'x', [field]: 'javascript:alert(1)' }).expect(400);
      expect(res.body.message).toBe(`${field} must be an absolute http(s) URL`);
    }
    const res = await t.http.post('/publishers').set(outsider.auth).send({ id: unique('pub'), name: 'x', support: 'help@example.com' }).expect(201);
    expect(res.body.support).toBe('help@example.com');
  });

  it('lets an admin add members to any publisher', async () => {
    const extra = await t.createUser();
    const res = await t.http.post(`/publishers/${publisherId}/members`).set(admin.auth).send({ user_id: extra.id, role: 'owner' }).expect(201);
    expect(res.body).toEqual({ id: expect.any(String), role: 'owner', user: { id: extra.id, name: 'Test User', email: extra.email } });
  });

  it('answers concurrent creations with one 201 and 409s, never a 500', async () => {
    const id = unique('race');
    const publishers = await Promise.all([1, 2, 3, 4].map(() => t.http.post('/publishers').set(owner.auth).send({ id, name: 'race' })));
    expect(publishers.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
    const joiner = await t.createUser();
    const members = await Promise.all(
      [1, 2, 3, 4].map(() => t.http.post(`/publishers/${id}/members`).set(owner.auth).send({ user_id: joiner.id, role: 'member' })),
    );
    expect(members.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
  });

  it('shows member e-mails only to members and admins', async () => {
    const emails = (body: { members: { user: { email?: string } }[] }) => body.members.slice(0, 2).map((m) => m.user.email);
    const anonymous = await t.http.get(`/publishers/${publisherId}`).expect(200);
    expect(emails(anonymous.body)).toEqual([undefined, undefined]);
    expect('email' in anonymous.body.members[0].user).toBe(false);
    expectNoNulls(anonymous.body);
    const asOutsider = await t.http.get(`/publishers/${publisherId}`).set(outsider.auth).expect(200);
    expect(emails(asOutsider.body)).toEqual([undefined, undefined]);
    const asMember = await t.http.get(`/publishers/${publisherId}`).set(member.auth).expect(200);
    expect(emails(asMember.body)).toEqual([owner.email, member.email]);
    expectNoNulls(asMember.body);
    const asAdmin = await t.http.get(`/publishers/${publisherId}`).set(admin.auth).expect(200);
    expect(emails(asAdmin.body)).toEqual([owner.email, member.email]);
  });

  it('a bad token on the optional-auth read is still 401; an unknown publisher is 404', async () => {
    await t.http.get(`/publishers/${publisherId}`).set('Authorization', 'Bearer nope').expect(401);
    await t.http.get(`/publishers/${unique('missing')}`).expect(404);
  });
});
