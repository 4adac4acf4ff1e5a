import { TransactionRunner } from '../src/database/transaction-runner';
import { PublishersService } from '../src/publishers/publishers.service';
import { expectErrorBody } from './support/error-body';
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
    expect(res.body).toMatchObject({ id: publisherId, name: 'Acme', website: 'https://acme.example', status: 'PublisherStatusActive' });
    expect(['description', 'support', 'source_code_repo', 'logo'].filter((key) => key in res.body)).toEqual([]);
    expectNoNulls(res.body);
    expect(res.body.createdAt).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
    expect(res.body.members).toEqual([{ id: expect.any(String), role: 'owner', user: { id: owner.id, name: 'Test User', email: owner.email } }]);
  });

  it('rejects a taken id with 409, a malformed one with 400 and anonymous callers with 401', async () => {
    await t.http.post('/publishers').set(outsider.auth).send({ id: publisherId, name: 'Again' }).expect(409);
    for (const id of ['Upper', '1starts-with-digit', 'has_underscore', 'a'.repeat(65)]) {
      const res = await t.http.post('/publishers').set(outsider.auth).send({ id, name: 'x' }).expect(400);
      expect(res.body.message).toBe('id must be 1-64 lower-case letters, digits or dashes, starting with a letter (^[a-z][a-z0-9-]{0,63}$)');
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

  it('a bad token is read as none, as on every public read (no member e-mails); an unknown publisher is 404', async () => {
    const stale = await t.http.get(`/publishers/${publisherId}`).set('Authorization', 'Bearer nope').expect(200);
    expect((stale.body as { members: { user: { email?: string } }[] }).members.map((m) => m.user.email)).toEqual([undefined, undefined]);
    await t.http.get(`/publishers/${unique('missing')}`).expect(404);
  });

  describe('PUT /publishers/{publisherId}', () => {
    const full = {
      name: 'Full',
      description: 'Nodes for everything',
      website: 'https://full.example',
      support: 'help@full.example',
      source_code_repo: 'https://git.example/full',
      logo: 'https://full.example/logo.png',
    };

    /** A new publisher with every field set, owned by `owner`, with `member` as a member. */
    async function fullPublisher(): Promise<string> {
      const id = unique('put');
      await t.http.post('/publishers').set(owner.auth).send({ id, ...full }).expect(201);
      await t.http.post(`/publishers/${id}/members`).set(owner.auth).send({ user_id: member.id, role: 'member' }).expect(201);
      return id;
    }

    const read = async (id: string) => (await t.http.get(`/publishers/${id}`).set(owner.auth).expect(200)).body;

    it('applies a merge-patch: omitted fields stay, null clears; the reply is the GET and it persists', async () => {
      const id = await fullPublisher();
      const res = await t.http
        .put(`/publishers/${id}`)
        .set(owner.auth)
        .send({ description: 'Fewer nodes', website: null, logo: 'https://full.example/new.png' })
        .expect(200);
      expect(res.body).toEqual(await read(id));
      const { website: _cleared, ...kept } = full;
      expect(res.body).toMatchObject({ ...kept, description: 'Fewer nodes', logo: 'https://full.example/new.png', status: 'PublisherStatusActive' });
      expect('website' in res.body).toBe(false);
      expectNoNulls(res.body);
      const anonymous = await t.http.get(`/publishers/${id}`).expect(200);
      expect(anonymous.body).toMatchObject({ name: 'Full', description: 'Fewer nodes', support: full.support });
      expect('website' in anonymous.body).toBe(false);
    });

    it('lets owners and admins update; members and strangers get 403, anonymous callers 401, an unknown publisher 404; refusals change nothing', async () => {
      const id = await fullPublisher();
      const before = await read(id);
      const byMember = await t.http.put(`/publishers/${id}`).set(member.auth).send({ name: 'Member' }).expect(403);
      expectErrorBody(byMember.body, 403, 'Forbidden');
      expect(byMember.body.message).toContain('owner');
      const byStranger = await t.http.put(`/publishers/${id}`).set(outsider.auth).send({ name: 'Stranger' }).expect(403);
      expect(byStranger.body.message).toBe(`you are not a member of publisher '${id}'`);
      const anonymous = await t.http.put(`/publishers/${id}`).send({ name: 'Anonymous' }).expect(401);
      expectErrorBody(anonymous.body, 401, 'Unauthorized');
      expect(anonymous.headers['www-authenticate']).toBe('Bearer');
      const unknown = await t.http.put(`/publishers/${unique('missing')}`).set(admin.auth).send({ name: 'Nobody' }).expect(404);
      expectErrorBody(unknown.body, 404, 'Not Found');
      expect(await read(id)).toEqual(before);

      const byAdmin = await t.http.put(`/publishers/${id}`).set(admin.auth).send({ name: 'Renamed by an admin' }).expect(200);
      expect(byAdmin.body.name).toBe('Renamed by an admin');
      // Admins see member e-mails, as on GET.
      expect(byAdmin.body.members.map((m: { user: { email?: string } }) => m.user.email)).toEqual([owner.email, member.email]);
      expect((await read(id)).name).toBe('Renamed by an admin');
    });

    it('validates as create does (name cannot be cleared, URLs, lengths, the body id, unknown fields); a refused body changes nothing', async () => {
      const id = await fullPublisher();
      const before = await read(id);
      const refusals: [object, string][] = [
        [{ name: null }, 'name cannot be null'],
        [{ name: '' }, 'name must be longer than or equal to 1 characters'],
        [{ website: 'javascript:alert(1)' }, 'website must be an absolute http(s) URL'],
        [{ logo: 'ftp://full.example/logo.png' }, 'logo must be an absolute http(s) URL'],
        [{ source_code_repo: 'not a url' }, 'source_code_repo must be an absolute http(s) URL'],
        [{ description: 'x'.repeat(5001) }, 'description must be shorter than or equal to 5000 characters'],
        [{ id: 'someone-else', name: 'x' }, `id 'someone-else' in the body does not match publisher '${id}' in the path`],
        [{ id: null }, 'id cannot be null'],
        [{ status: 'PublisherStatusGone' }, 'status'],
        [{ nmae: 'typo' }, 'nmae'],
      ];
      for (const [body, message] of refusals) {
        const res = await t.http.put(`/publishers/${id}`).set(owner.auth).send(body).expect(400);
        expectErrorBody(res.body, 400, 'Bad Request');
        expect(res.body.message).toContain(message);
      }
      expect(await read(id)).toEqual(before);
    });

    it('takes back its own GET body (server-managed fields accepted and ignored)', async () => {
      const id = await fullPublisher();
      const body = await read(id);
      const res = await t.http
        .put(`/publishers/${id}`)
        .set(owner.auth)
        .send({ ...body, name: 'Round trip', createdAt: '2000-01-01T00:00:00.000Z', members: [], status: 'PublisherStatusBanned' })
        .expect(200);
      expect(res.body).toEqual({ ...body, name: 'Round trip' });
      expect(await read(id)).toEqual({ ...body, name: 'Round trip' });
      // Only server-managed fields: nothing to write, the publisher as it is.
      await t.http.put(`/publishers/${id}`).set(owner.auth).send({ createdAt: body.createdAt }).expect(200);
      expect(await read(id)).toEqual({ ...body, name: 'Round trip' });
    });
  });

  describe('a banned publisher', () => {
    let id: string;
    let nodeId: string;
    let adminMember: TestUser;

    beforeAll(async () => {
      id = unique('banned');
      nodeId = unique('node');
      adminMember = await t.createUser({ admin: true });
      await t.http.post('/publishers').set(owner.auth).send({ id, name: 'Soon banned' }).expect(201);
      for (const user of [member, adminMember]) {
        await t.http.post(`/publishers/${id}/members`).set(owner.auth).send({ user_id: user.id, role: 'member' }).expect(201);
      }
      await t.http.post(`/publishers/${id}/nodes`).set(owner.auth).send({ id: nodeId, name: 'Node' }).expect(201);
      const publishers = t.app.get(PublishersService);
      await t.app.get(TransactionRunner).run((manager) => publishers.ban(manager, id));
    });

    it('shows its status', async () => {
      const res = await t.http.get(`/publishers/${id}`).set(outsider.auth).expect(200);
      expect(res.body.status).toBe('PublisherStatusBanned');
    });

    it('refuses its members with 403 "publisher banned" on every route that checks their role, changing nothing', async () => {
      const before = (await t.http.get(`/publishers/${id}`).set(admin.auth).expect(200)).body;
      const refused = [
        t.http.put(`/publishers/${id}`).set(owner.auth).send({ name: 'Still here' }),
        t.http.post(`/publishers/${id}/members`).set(owner.auth).send({ user_id: outsider.id, role: 'member' }),
        t.http.post(`/publishers/${id}/nodes`).set(owner.auth).send({ id: unique('node'), name: 'New' }),
        t.http.post(`/publishers/${id}/nodes`).set(member.auth).send({ id: unique('node'), name: 'New' }),
        // Routes of one of its nodes check the role after reading the node (PublishersService.roleOf).
        t.http.put(`/publishers/${id}/nodes/${nodeId}`).set(member.auth).send({ description: 'changed' }),
      ];
      for (const res of await Promise.all(refused)) {
        expect(res.status).toBe(403);
        expectErrorBody(res.body, 403, 'Forbidden');
        expect(res.body.message).toBe('publisher banned');
      }
      const byStranger = await t.http.put(`/publishers/${id}`).set(outsider.auth).send({ name: 'Stranger' }).expect(403);
      expect(byStranger.body.message).toBe(`you are not a member of publisher '${id}'`);
      expect((await t.http.get(`/publishers/${id}`).set(admin.auth).expect(200)).body).toEqual(before);
      expect((await t.http.get(`/publishers/${id}/nodes`).set(admin.auth).expect(200)).body.map((node: { id: string }) => node.id)).toEqual([nodeId]);
      expect((await t.http.get(`/nodes/${nodeId}`).expect(200)).body.description).toBeUndefined();
    });

    it('still lets admins act, members of it or not', async () => {
      const res = await t.http.put(`/publishers/${id}`).set(admin.auth).send({ description: 'Banned for spam' }).expect(200);
      expect(res.body).toMatchObject({ description: 'Banned for spam', status: 'PublisherStatusBanned' });
      await t.http.post(`/publishers/${id}/members`).set(admin.auth).send({ user_id: outsider.id, role: 'member' }).expect(201);
      await t.http.post(`/publishers/${id}/nodes`).set(admin.auth).send({ id: unique('node'), name: 'By an admin' }).expect(201);
      await t.http.put(`/publishers/${id}/nodes/${nodeId}`).set(adminMember.auth).send({ description: 'by an admin member' }).expect(200);
    });

    it('banning an unknown publisher is 404', async () => {
      const publishers = t.app.get(PublishersService);
      await expect(t.app.get(TransactionRunner).run((manager) => publishers.ban(manager, unique('missing')))).rejects.toMatchObject({ status: 404 });
    });
  });
});
