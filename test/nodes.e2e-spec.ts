import { NodeVersionEntity } from '../src/nodes/entities/node-version.entity';
import { NodeEntity } from '../src/nodes/entities/node.entity';
import { NodesRepository } from '../src/nodes/nodes.repository';
import { PublisherMemberEntity } from '../src/publishers/entities/publisher-member.entity';
import { PublisherEntity } from '../src/publishers/entities/publisher.entity';
import { PublishersRepository } from '../src/publishers/publishers.repository';
import { CreditLedgerEntryEntity } from '../src/users/entities/credit-ledger-entry.entity';
import { UserEntity } from '../src/users/entities/user.entity';
import { UsersRepository } from '../src/users/users.repository';
import { VideoTaskEntity } from '../src/video-proxy/entities/video-task.entity';
import { VideoTasksRepository } from '../src/video-proxy/video-tasks.repository';
import { expectErrorBody } from './support/error-body';
import { expectNoNulls } from './support/no-nulls';
import { lockWaiters } from './support/postgres';
import { createPublisherWithNode, PublisherFixture } from './support/registry-fixtures';
import { TestApp, TestUser, unique } from './support/test-app';

describe('Nodes', () => {
  let t: TestApp;
  let admin: TestUser;
  let outsider: TestUser;

  beforeAll(async () => {
    t = await TestApp.start();
    admin = await t.createUser({ admin: true });
    outsider = await t.createUser();
  });
  afterAll(() => t.close());

  const nodeUrl = (f: PublisherFixture, nodeId = f.nodeId) => `/publishers/${f.publisherId}/nodes/${nodeId}`;
  const stored = (nodeId: string) => t.dataSource.getRepository(NodeEntity).findOneByOrFail({ id: nodeId });

  describe('create and read', () => {
    it('creates a node with defaults and shows it with its publisher', async () => {
      const f = await createPublisherWithNode(t, { tags: ['image'], repository: 'https://example.com/repo' });
      const res = await t.http.get(`/nodes/${f.nodeId}`).expect(200);
      expect(res.body).toMatchObject({
        id: f.nodeId,
        name: 'A node',
        tags: ['image'],
        repository: 'https://example.com/repo',
        status: 'NodeStatusActive',
        rating: 0,
        downloads: 0,
        search_ranking: 0,
        tags_admin: [],
        publisher: { id: f.publisherId, name: 'Publisher' },
      });
      expect(res.body).not.toHaveProperty('latest_version');
      expect(res.body.publisher).not.toHaveProperty('members');
    });

    it('leaves out every field without a value (never null) and shows empty arrays as []', async () => {
      const f = await createPublisherWithNode(t);
      const res = await t.http.get(`/nodes/${f.nodeId}`).expect(200);
      expectNoNulls(res.body);
      expect('latest_version' in res.body).toBe(false);
      expect('description' in res.body).toBe(false);
      const absent = ['author', 'category', 'license', 'icon', 'banner_url', 'repository', 'homepage', 'supported_app_version', 'supported_app_frontend_version', 'translations', 'status_detail'];
      expect(absent.filter((key) => key in res.body)).toEqual([]);
      expect(absent.filter((key) => key in res.body.publisher)).toEqual([]);
      expect(['description', 'website', 'support', 'source_code_repo', 'logo'].filter((key) => key in res.body.publisher)).toEqual([]);
      expect(res.body).toMatchObject({ tags: [], tags_admin: [], supported_os: [], supported_accelerators: [], preempted_app_node_names: [] });

      await t.http.post(`${nodeUrl(f)}/versions`).set(f.owner.auth).send({ version: '1.0.0' }).expect(201);
      const versions = await t.http.get(`/nodes/${f.nodeId}/versions`).expect(200);
      expectNoNulls(versions.body);
      const [version] = versions.body as Record<string, unknown>[];
      expect(['changelog', 'downloadUrl', 'status_reason', 'app_node_extract_status', 'supported_app_version', 'supported_app_frontend_version'].filter((key) => key in version)).toEqual([]);
      expect(version).toMatchObject({ version: '1.0.0', dependencies: [], tags: [], tags_admin: [], supported_os: [], supported_accelerators: [] });
      const node = await t.http.get(`/nodes/${f.nodeId}`).expect(200);
      expectNoNulls(node.body);
      expect(node.body.latest_version).toEqual(version);
    });

    it('looks nodes up and keeps ids unique ignoring case', async () => {
      const f = await createPublisherWithNode(t);
      expect((await t.http.get(`/nodes/${f.nodeId.toUpperCase()}`).expect(200)).body.id).toBe(f.nodeId);
      const taken = await t.http
        .post(`/publishers/${f.publisherId}/nodes`)
        .set(f.owner.auth)
        .send({ id: f.nodeId.toLowerCase(), name: 'dup' })
        .expect(409);
      expect(taken.body.message).toContain('already taken');
    });

    it('validates node ids and requires membership to create', async () => {
      const f = await createPublisherWithNode(t);
      for (const id of ['-leading', 'trailing.', 'has space', 'x'.repeat(101), '']) {
        await t.http.post(`/publishers/${f.publisherId}/nodes`).set(f.owner.auth).send({ id, name: 'n' }).expect(400);
      }
      // Said in words, not as the pattern.
      expect((await t.http.post(`/publishers/${f.publisherId}/nodes`).set(f.owner.auth).send({ id: 'has space', name: 'n' })).body.message).toBe(
        "id must be 1-100 letters, digits, '.', '_' or '-', starting and ending with a letter or digit",
      );
      await t.http.post(`/publishers/${f.publisherId}/nodes`).set(f.owner.auth).send({ id: unique('n') }).expect(400);
      await t.http.post(`/publishers/${f.publisherId}/nodes`).set(outsider.auth).send({ id: unique('n'), name: 'n' }).expect(403);
      await t.http.post(`/publishers/${unique('nope')}/nodes`).set(outsider.auth).send({ id: unique('n'), name: 'n' }).expect(404);
      const adminField = await t.http
        .post(`/publishers/${f.publisherId}/nodes`)
        .set(f.member.auth)
        .send({ id: unique('n'), name: 'n', search_ranking: 100 })
        .expect(403);
      expect(adminField.body.message).toContain('search_ranking');
    });

    it('finds rows by prepared SQL exactly as TypeORM findOne would, and nothing for unknown keys', async () => {
      const f = await createPublisherWithNode(t, { tags: ['a'], translations: { de: { name: 'Knoten' } } });
      await t.http.post(`/publishers/${f.publisherId}/nodes/${f.nodeId}/versions`).set(f.owner.auth).send({ version: '1.0.0', dependencies: ['numpy'] }).expect(201);
      const { manager } = t.dataSource;
      const nodes = t.app.get(NodesRepository);
      const publishers = t.app.get(PublishersRepository);
      const node = await nodes.findNode(f.nodeId.toLowerCase());
      expect(node).toEqual(await manager.findOneByOrFail(NodeEntity, { id: f.nodeId }));
      const version = await manager.findOneByOrFail(NodeVersionEntity, { nodeId: f.nodeId });
      expect(await nodes.findVersion(manager, f.nodeId, '1.0.0')).toEqual(version);
      expect(await nodes.findVersion(manager, f.nodeId, version.id)).toEqual(version);
      expect(await publishers.findById(f.publisherId)).toEqual(await manager.findOneByOrFail(PublisherEntity, { id: f.publisherId }));
      expect(await publishers.findMembership(f.publisherId, f.member.id)).toEqual(
        await manager.findOneByOrFail(PublisherMemberEntity, { publisherId: f.publisherId, userId: f.member.id }),
      );
      expect(await t.app.get(UsersRepository).findById(f.owner.id)).toEqual(await manager.findOneByOrFail(UserEntity, { id: f.owner.id }));
      expect(await nodes.findNode('no-such-node')).toBeNull();
      expect(await nodes.findVersion(manager, 'other-node', '1.0.0')).toBeNull();
      expect(await publishers.findMembership(f.publisherId, outsider.id)).toBeNull();
      const publisher = await manager.findOneByOrFail(PublisherEntity, { id: f.publisherId });
      expect(await publishers.findWithRole(f.publisherId, f.owner.id)).toEqual({ publisher, role: 'owner' });
      expect(await publishers.findWithRole(f.publisherId, f.member.id)).toEqual({ publisher, role: 'member' });
      expect(await publishers.findWithRole(f.publisherId, outsider.id)).toEqual({ publisher, role: null });
      expect(await publishers.findWithRole('no-such-publisher', f.owner.id)).toBeNull();
    });

    it('writes by prepared UPDATE what manager.update would (arrays, JSON, dates, nulls), and only the given columns', async () => {
      const f = await createPublisherWithNode(t, { description: 'before', tags: ['a'] });
      const { manager } = t.dataSource;
      const at = new Date('2026-01-02T03:04:05.678Z');
      const changes = { tags: ['x', 'y'], translations: { de: { name: 'Knoten' } }, description: null, updatedAt: at, author: undefined };
      const before = await manager.findOneByOrFail(NodeEntity, { id: f.nodeId });
      await t.app.get(NodesRepository).updateNode(manager, f.nodeId, changes);
      const viaPrepared = await manager.findOneByOrFail(NodeEntity, { id: f.nodeId });
      expect(viaPrepared).toEqual({ ...before, tags: ['x', 'y'], translations: { de: { name: 'Knoten' } }, description: null, updatedAt: at });
      await manager.update(NodeEntity, { id: f.nodeId }, { tags: ['x', 'y'], translations: { de: { name: 'Knoten' } }, description: null, updatedAt: at });
      expect(await manager.findOneByOrFail(NodeEntity, { id: f.nodeId })).toEqual(viaPrepared);
    });

    it('repositories insert what manager.insert would (JSON, dates, nulls, generated ids), leaving what they were given as it was', async () => {
      const { manager } = t.dataSource;
      const at = new Date('2026-01-02T03:04:05.678Z');
      const task = {
        taskId: unique('prepared'),
        userId: outsider.id,
        model: 'videoq2-turbo',
        state: 'created' as const,
        credits: 3,
        request: { prompt: 'ein Fuchs 🦊', images: ['https://example.com/a.png'] },
        reply: { task_id: 'x', credits: 3 },
        callbackUrl: null,
        errCode: null,
        creations: null,
        refundedAt: null,
        idempotencyKeyId: null,
        createdAt: at,
        updatedAt: at,
        nextCheckAt: at,
      };
      const viaTypeormId = unique('typeorm');
      await t.app.get(VideoTasksRepository).insert(manager, { ...task });
      await manager.insert(VideoTaskEntity, { ...task, taskId: viaTypeormId });
      const viaRepository = await manager.findOneByOrFail(VideoTaskEntity, { taskId: task.taskId });
      expect(viaRepository).toEqual(task);
      expect(await manager.findOneByOrFail(VideoTaskEntity, { taskId: viaTypeormId })).toEqual({ ...viaRepository, taskId: viaTypeormId });

      const entry = { userId: outsider.id, kind: 'grant' as const, amount: 5, balanceAfter: 5, taskId: null, createdAt: at };
      const appendedId = await t.app.get(UsersRepository).appendLedgerEntry(manager, entry);
      expect(entry).not.toHaveProperty('id');
      await manager.insert(CreditLedgerEntryEntity, { ...entry });
      const entries = await manager.find(CreditLedgerEntryEntity, { where: { userId: outsider.id, createdAt: at }, order: { id: 'ASC' } });
      expect(entries.map(({ id: _id, ...rest }) => rest)).toEqual([entry, entry]);
      expect(entries[0].id).toBe(appendedId);
      expect(entries[1].id).toBeGreaterThan(entries[0].id);
    });

    it('returns 404 for unknown nodes, and 400 for a NUL in the id', async () => {
      await t.http.get(`/nodes/${unique('missing')}`).expect(404);
      await t.http.get(`/nodes/${unique('missing')}/versions`).expect(404);
      const nul = await t.http.get('/nodes/a%00b').expect(400);
      expect(nul.body.message).toBe('nodeId must not contain NUL characters');
      await t.http.get('/nodes?search=a%00b').expect(400);
    });

    it('rejects prototype keys in query strings', async () => {
      await t.http.get('/nodes?__proto__=1').expect(400);
    });

    it('hides the versions of a deleted node', async () => {
      const f = await createPublisherWithNode(t);
      await t.http.put(nodeUrl(f)).set(admin.auth).send({ status: 'NodeStatusDeleted' }).expect(200);
      await t.http.get(`/nodes/${f.nodeId}/versions`).expect(404);
    });

    it('answers concurrent creations of one id (in any case) with one 201 and 409s, never a 500', async () => {
      const f = await createPublisherWithNode(t);
      const id = unique('race');
      const replies = await Promise.all(
        [id, id.toUpperCase(), id, id.toUpperCase()].map((nodeId) =>
          t.http.post(`/publishers/${f.publisherId}/nodes`).set(f.owner.auth).send({ id: nodeId, name: 'race' }),
        ),
      );
      expect(replies.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
    });
  });

  describe('PUT /publishers/{publisherId}/nodes/{nodeId}', () => {
    let f: PublisherFixture;
    beforeEach(async () => {
      f = await createPublisherWithNode(t, {
        description: 'first',
        author: 'Ann',
        tags: ['a', 'b'],
        supported_os: ['linux'],
        icon: 'https://example.com/icon.png',
      });
    });

    it('is a merge patch: omitted fields stay, null clears, arrays are replaced whole', async () => {
      const res = await t.http
        .put(nodeUrl(f))
        .set(f.owner.auth)
        .send({ description: null, tags: ['c'], supported_os: null, category: 'legacy' })
        .expect(200);
      expect(res.body).toMatchObject({
        name: 'A node',
        author: 'Ann',
        icon: 'https://example.com/icon.png',
        tags: ['c'],
        supported_os: [],
        category: 'legacy',
      });
      expect(res.body).not.toHaveProperty('description');
      expectNoNulls(res.body);
      const row = await stored(f.nodeId);
      expect([row.description, row.tags, row.supportedOs, row.author]).toEqual([null, ['c'], [], 'Ann']);
    });

    it('returns the full node, as GET shows it', async () => {
      await t.http.post(`${nodeUrl(f)}/versions`).set(f.owner.auth).send({ version: '1.0.0', tags: ['v'] }).expect(201);
      const put = await t.http
        .put(nodeUrl(f))
        .set(f.member.auth)
        .send({ name: 'Renamed', description: null, tags: ['x', 'y'], supported_os: null, translations: { de: { name: 'Knoten' } } })
        .expect(200);
      const get = await t.http.get(`/nodes/${f.nodeId}`).expect(200);
      expect(put.body).toEqual(get.body);
      expect(get.body).toMatchObject({ name: 'Renamed', tags: ['x', 'y'], supported_os: [], latest_version: { version: '1.0.0' } });
      expect(get.body).not.toHaveProperty('description');
      expectNoNulls(put.body);
      const moderated = await t.http.put(nodeUrl(f)).set(admin.auth).send({ status: 'NodeStatusBanned', search_ranking: 3 }).expect(200);
      // The write's reply shows what it wrote; only admins may still read a banned node (docs/api-rules.md §10).
      expect(moderated.body).toEqual((await t.http.get(`/nodes/${f.nodeId}`).set(admin.auth).expect(200)).body);
      expect(moderated.body).toEqual({ ...get.body, status: 'NodeStatusBanned', search_ranking: 3 });
      expect((await t.http.get(`/nodes/${f.nodeId}`).expect(403)).body.message).toBe('node banned');
    });

    // Only PostgreSQL has row locks to wait on; SQLite runs writers one at a time.
    (process.env.TEST_DATABASE_URL ? it : it.skip)(
      'after waiting for the node lock, answers with what the lock holder committed (PUT node and POST review)',
      async () => {
        await t.http.post(`${nodeUrl(f)}/versions`).set(f.owner.auth).send({ version: '1.0.0', changelog: 'before' }).expect(201);
        const holder = t.dataSource.createQueryRunner();
        await holder.connect();
        await holder.startTransaction();
        try {
          await holder.query('SELECT id FROM nodes WHERE id = $1 FOR UPDATE', [f.nodeId]);
          await holder.query(`UPDATE node_versions SET changelog = 'while locked' WHERE node_id = $1`, [f.nodeId]);
          const put = t.http.put(nodeUrl(f)).set(f.member.auth).send({ author: 'Waiter' }).then((res) => res);
          const review = t.http.post(`/nodes/${f.nodeId}/reviews?star=4`).set(outsider.auth).then((res) => res);
          // Both requests are queued on the lock before the holder commits.
          await lockWaiters(t.dataSource, 2);
          await holder.commitTransaction();
          const [putReply, reviewReply] = await Promise.all([put, review]);
          const get = await t.http.get(`/nodes/${f.nodeId}`).expect(200);
          expect(get.body.latest_version.changelog).toBe('while locked');
          expect([putReply.status, reviewReply.status]).toEqual([200, 200]);
          // Whichever ran second saw the other's change; each shows the version as committed.
          expect(putReply.body.latest_version).toEqual(get.body.latest_version);
          expect(reviewReply.body.latest_version).toEqual(get.body.latest_version);
        } finally {
          if (holder.isTransactionActive) await holder.rollbackTransaction();
          await holder.release();
        }
      },
    );

    it('supports a GET → edit → PUT round trip, ignoring server-managed fields', async () => {
      await t.http.post(`${nodeUrl(f)}/versions`).set(f.owner.auth).send({ version: '1.0.0' }).expect(201);
      const { body: node } = await t.http.get(`/nodes/${f.nodeId}`).expect(200);
      expect(node.latest_version.version).toBe('1.0.0');
      const res = await t.http
        .put(nodeUrl(f))
        .set(f.member.auth)
        .send({ ...node, description: 'edited', downloads: 999, rating: 5, github_stars: 7, created_at: '2000-01-01T00:00:00Z' })
        .expect(200);
      expect(res.body).toMatchObject({ description: 'edited', downloads: 0, rating: 0, github_stars: 0, created_at: node.created_at });
    });

    it('takes back, as GET returned it, a translation that merges grew past 1,000 members', async () => {
      const language = (prefix: string) => Object.fromEntries(Array.from({ length: 800 }, (_, i) => [`${prefix}${i}`, 'x']));
      await t.http.put(nodeUrl(f)).set(f.owner.auth).send({ translations: { de: language('k') } }).expect(200);
      await t.http.put(nodeUrl(f)).set(f.owner.auth).send({ translations: { de: language('j') } }).expect(200);
      const { body: node } = await t.http.get(`/nodes/${f.nodeId}`).expect(200);
      expect(Object.keys(node.translations.de)).toHaveLength(1600);
      await t.http.put(nodeUrl(f)).set(f.owner.auth).send({ ...node, description: 'edited' }).expect(200);
    });

    it('rejects clearing the name, and a body id that differs from the path', async () => {
      const cleared = await t.http.put(nodeUrl(f)).set(f.owner.auth).send({ name: null }).expect(400);
      expect(cleared.body.message).toBe('name cannot be null');
      expect((await t.http.put(nodeUrl(f)).set(f.owner.auth).send({ id: null }).expect(400)).body.message).toBe('id cannot be null');
      const mismatch = await t.http.put(nodeUrl(f)).set(f.owner.auth).send({ id: 'other-node' }).expect(400);
      expect(mismatch.body.message).toContain('does not match');
      await t.http.put(nodeUrl(f)).set(f.owner.auth).send({ id: f.nodeId.toUpperCase() }).expect(200);
    });

    it.each([
      [{ icon: 'ftp://example.com/x.png' }, 'icon must be an absolute http(s) URL'],
      [{ banner_url: 'not a url' }, 'banner_url must be an absolute http(s) URL'],
      [{ repository: '/relative/path' }, 'repository must be an absolute http(s) URL'],
      [{ homepage: 'javascript:alert(1)' }, 'homepage must be an absolute http(s) URL'],
      [{ name: '' }, 'name must be longer than or equal to 1 characters'],
      [{ name: 'n'.repeat(257) }, 'name must be shorter than or equal to 256 characters'],
      [{ description: 'd'.repeat(5001) }, 'description must be shorter than or equal to 5000 characters'],
      [{ tags: ['ok', ''] }, 'each value in tags must not be empty or blank'],
      [{ supported_os: [' \t'] }, 'each value in supported_os must not be empty or blank'],
      [{ tags: 'image' }, 'tags must be an array'],
      [{ supported_accelerators: [1] }, 'each value in supported_accelerators must be a string'],
      [{ preempted_app_node_names: [''] }, 'each value in preempted_app_node_names must not be empty or blank'],
      [{ translations: { de: 'Hallo' } }, 'translations must be an object whose values are objects'],
      [{ downloads: 'many' }, 'downloads must be an integer number'],
      [{ colour: 'red' }, 'property colour should not exist'],
      [{ name: 'nul\u0000byte' }, 'name must not contain NUL characters'],
      [{ translations: { de: { name: 'a\u0000' } } }, 'translations.de.name must not contain NUL characters'],
      [{ name: 'a\ud800b' }, 'name must be well-formed Unicode (it has an unpaired surrogate)'],
      [{ tags: ['ok', '\udc00'] }, 'tags.1 must be well-formed Unicode'],
      [JSON.parse('{"__proto__": {"polluted": true}}'), 'property __proto__ is not allowed'],
      [{ constructor: { prototype: { polluted: true } } }, 'property constructor is not allowed'],
      [{ translations: { de: { ['__proto__']: 'x' } } }, 'not allowed'],
    ])('rejects %j with 400 and changes nothing', async (body, message) => {
      const before = await stored(f.nodeId);
      const res = await t.http.put(nodeUrl(f)).set(f.owner.auth).send(body).expect(400);
      expect(res.body.message).toContain(message);
      expect(await stored(f.nodeId)).toEqual(before);
    });

    it('stores and shows characters outside the BMP (surrogate pairs) as sent', async () => {
      const name = 'Knoten 🎬 𝄞';
      const put = await t.http.put(nodeUrl(f)).set(f.owner.auth).send({ name }).expect(200);
      expect(put.body.name).toBe(name);
      expect((await t.http.get(`/nodes/${f.nodeId}`).expect(200)).body.name).toBe(name);
    });

    it('accepts translations as an object of objects', async () => {
      const translations = { de: { name: 'Ein Knoten' }, fr: { name: 'Un nœud' } };
      const res = await t.http.put(nodeUrl(f)).set(f.owner.auth).send({ translations }).expect(200);
      expect(res.body.translations).toEqual(translations);
    });

    it('merges translations into the stored ones (JSON merge-patch): a member set to null goes, the others stay', async () => {
      const put = (translations: object | null) => t.http.put(nodeUrl(f)).set(f.owner.auth).send({ translations }).expect(200);
      await put(null);
      await put({ de: { name: 'Ein Knoten', description: 'Knoten' }, fr: { name: 'Un nœud' } });
      const merged = await put({ de: { name: 'Der Knoten' }, ja: { name: 'ノード' } });
      expect(merged.body.translations).toEqual({ de: { name: 'Der Knoten', description: 'Knoten' }, fr: { name: 'Un nœud' }, ja: { name: 'ノード' } });
      const removed = await put({ fr: null, de: { description: null } });
      expect(removed.body.translations).toEqual({ de: { name: 'Der Knoten' }, ja: { name: 'ノード' } });
      expect((await t.http.get(`/nodes/${f.nodeId}`).expect(200)).body.translations).toEqual(removed.body.translations);
      expect((await put({ de: null, ja: null })).body.translations).toEqual({});
      await put(null);
      expect((await t.http.get(`/nodes/${f.nodeId}`).expect(200)).body).not.toHaveProperty('translations');
    });

    it('refuses translations that would pass 1 MiB once merged, changing nothing', async () => {
      const put = (translations: object | null) => t.http.put(nodeUrl(f)).set(f.owner.auth).send({ translations });
      await put(null).expect(200);
      await put({ de: { description: 'd'.repeat(600_000) } }).expect(200);
      const res = await put({ fr: { description: 'f'.repeat(600_000) } }).expect(400);
      expect(res.body.message).toBe('translations would be larger than 1 MiB of JSON once merged');
      expect(Object.keys((await t.http.get(`/nodes/${f.nodeId}`).expect(200)).body.translations as object)).toEqual(['de']);
      await put(null).expect(200);
    });

    it('merges translations for a member resending admin-only fields unchanged, and refuses one changing them', async () => {
      const { body: current } = await t.http.get(`/nodes/${f.nodeId}`).expect(200);
      const admin = { search_ranking: current.search_ranking, status: current.status };
      await t.http.put(nodeUrl(f)).set(f.owner.auth).send({ translations: null }).expect(200);
      const merged = await t.http.put(nodeUrl(f)).set(f.owner.auth).send({ ...admin, translations: { de: { name: 'Knoten' } } }).expect(200);
      expect(merged.body.translations).toEqual({ de: { name: 'Knoten' } });
      const refused = await t.http
        .put(nodeUrl(f))
        .set(f.owner.auth)
        .send({ search_ranking: (current.search_ranking as number) + 1, translations: { fr: { name: 'Nœud' } } })
        .expect(403);
      expect(refused.body.message).toBe("only admins may change 'search_ranking'");
      expect((await t.http.get(`/nodes/${f.nodeId}`).expect(200)).body.translations).toEqual({ de: { name: 'Knoten' } });
    });

    it.each([
      ['status', 'NodeStatusBanned'],
      ['status_detail', 'spam'],
      ['tags_admin', ['unsafe']],
      ['search_ranking', 99],
      ['preempted_app_node_names', ['LoadImage']],
    ])('403 when a non-admin changes %s, but the current value may be resent', async (field, value) => {
      const { body: node } = await t.http.get(`/nodes/${f.nodeId}`).expect(200);
      const res = await t.http.put(nodeUrl(f)).set(f.owner.auth).send({ [field]: value }).expect(403);
      expect(res.body.message).toContain(field);
      await t.http.put(nodeUrl(f)).set(f.owner.auth).send({ [field]: node[field] }).expect(200);
      const byAdmin = await t.http.put(nodeUrl(f)).set(admin.auth).send({ [field]: value }).expect(200);
      expect(byAdmin.body[field]).toEqual(value);
    });

    it('never reveals another publisher’s node: 404', async () => {
      const other = await createPublisherWithNode(t);
      const res = await t.http.put(nodeUrl(other, f.nodeId)).set(other.owner.auth).send({ name: 'hijack' }).expect(404);
      expect(res.body.message).toContain('not found');
      expect((await stored(f.nodeId)).name).toBe('A node');
    });

    it('403 for authenticated non-members, 404 for unknown publishers or nodes, 401 without a token', async () => {
      await t.http.put(nodeUrl(f)).set(outsider.auth).send({ name: 'x' }).expect(403);
      await t.http.put(`/publishers/${unique('nope')}/nodes/${f.nodeId}`).set(outsider.auth).send({ name: 'x' }).expect(404);
      await t.http.put(nodeUrl(f, unique('nope'))).set(f.owner.auth).send({ name: 'x' }).expect(404);
      await t.http.put(nodeUrl(f)).send({ name: 'x' }).expect(401);
      // The publisher is judged before the node: a non-member learns nothing about which nodes exist.
      const other = await createPublisherWithNode(t);
      await t.http.put(nodeUrl(f, unique('nope'))).set(outsider.auth).send({ name: 'x' }).expect(403);
      await t.http.put(nodeUrl(other, f.nodeId)).set(outsider.auth).send({ name: 'x' }).expect(403);
      await t.http.put(nodeUrl(other, f.nodeId)).set(admin.auth).send({ name: 'x' }).expect(404);
      await t.http.put(nodeUrl(f)).set(admin.auth).send({ status: 'NodeStatusDeleted' }).expect(200);
      await t.http.put(nodeUrl(f)).set(outsider.auth).send({ name: 'x' }).expect(403);
      await t.http.post(`${nodeUrl(f)}/versions`).set(outsider.auth).send({ version: '1.0.0' }).expect(403);
      expect((await stored(f.nodeId)).name).toBe('A node');
    });

    it('admins may update any publisher’s node', async () => {
      await t.http.put(nodeUrl(f)).set(admin.auth).send({ author: 'Moderator' }).expect(200);
      expect((await stored(f.nodeId)).author).toBe('Moderator');
    });

    it('a deleted node is 404 and a banned node 403 for non-admins', async () => {
      await t.http.put(nodeUrl(f)).set(admin.auth).send({ status: 'NodeStatusBanned', status_detail: 'malware' }).expect(200);
      const banned = await t.http.put(nodeUrl(f)).set(f.owner.auth).send({ name: 'x' }).expect(403);
      expect(banned.body.message).toContain('banned');
      for (const path of [`/nodes/${f.nodeId}`, `/nodes/${f.nodeId}/versions`, `/nodes/${f.nodeId}/install`]) {
        for (const reader of [{}, f.owner.auth, f.member.auth]) {
          const res = await t.http.get(path).set(reader).expect(403);
          expectErrorBody(res.body, 403, 'Forbidden');
          expect(res.body.message).toBe('node banned');
        }
      }
      expect((await t.http.get(`/nodes/${f.nodeId}`).set(admin.auth).expect(200)).body).toMatchObject({ id: f.nodeId, status: 'NodeStatusBanned' });

      await t.http.put(nodeUrl(f)).set(admin.auth).send({ status: 'NodeStatusDeleted' }).expect(200);
      await t.http.put(nodeUrl(f)).set(f.owner.auth).send({ name: 'x' }).expect(404);
      await t.http.get(`/nodes/${f.nodeId}`).expect(404);
      await t.http.put(nodeUrl(f)).set(admin.auth).send({ status: 'NodeStatusActive' }).expect(200);
      await t.http.put(nodeUrl(f)).set(f.owner.auth).send({ name: 'restored' }).expect(200);
    });
  });

  describe('GET /nodes', () => {
    const tag = unique('zq').replace('-', '');
    const ids = { low: `${tag}-low`, high: `${tag}-high`, popular: `${tag}-popular`, tieA: `${tag}-tie-a`, tieB: `${tag}-tie-b` };
    const described = unique('described');
    const named = unique('named');

    beforeAll(async () => {
      const f = await createPublisherWithNode(t);
      for (const id of Object.values(ids)) {
        await t.http.post(`/publishers/${f.publisherId}/nodes`).set(f.owner.auth).send({ id, name: `Node ${id}` }).expect(201);
      }
      await t.http.put(`/publishers/${f.publisherId}/nodes/${ids.high}`).set(admin.auth).send({ search_ranking: 10 }).expect(200);
      await t.dataSource.getRepository(NodeEntity).update({ id: ids.popular }, { downloads: 50 });
      const hidden = [`${tag}-banned`, `${tag}-deleted`];
      for (const [id, status] of [[hidden[0], 'NodeStatusBanned'], [hidden[1], 'NodeStatusDeleted']]) {
        await t.http.post(`/publishers/${f.publisherId}/nodes`).set(admin.auth).send({ id, name: id, status }).expect(201);
      }
      await t.http
        .post(`/publishers/${f.publisherId}/nodes`)
        .set(f.owner.auth)
        .send({ id: described, name: 'Other', description: `mentions ${tag.toUpperCase()} in passing`, author: 'Zed' })
        .expect(201);
      await t.http
        .post(`/publishers/${f.publisherId}/nodes`)
        .set(f.owner.auth)
        .send({ id: named, name: `ÉMILE Ünïcode ${tag}x` })
        .expect(201);
    });

    it('matches the id alone and the name alone, ignoring case beyond ASCII', async () => {
      const byId = await t.http.get(`/nodes?search=${encodeURIComponent(named.toUpperCase())}`).expect(200);
      expect(byId.body.nodes.map((n: { id: string }) => n.id)).toEqual([named]);
      const byName = await t.http.get(`/nodes?search=${encodeURIComponent(`émile ünïcode ${tag}X`)}`).expect(200);
      expect(byName.body.nodes.map((n: { id: string }) => n.id)).toEqual([named]);
    });

    it('pages 10 nodes by default', async () => {
      const res = await t.http.get('/nodes').expect(200);
      expect(res.body).toMatchObject({ page: 1, limit: 10 });
      expect(res.body.nodes.length).toBeLessThanOrEqual(10);
      expect(res.headers['x-request-id']).toBeDefined();
    });

    it('searches id, name, description and author ignoring case, ordered by ranking, downloads, id', async () => {
      const res = await t.http.get(`/nodes?search=${tag.toUpperCase()}&limit=100`).expect(200);
      const listed = res.body.nodes.map((n: { id: string }) => n.id);
      // ranking first, then downloads, then id ('described-…' sorts before the tag's ids)
      expect(listed).toEqual([ids.high, ids.popular, described, named, ids.low, ids.tieA, ids.tieB]);
      expect(res.body).toMatchObject({ total: 7, page: 1, limit: 100, totalPages: 1 });
      expectNoNulls(res.body);
      const byAuthor = await t.http.get(`/nodes?search=zed`).expect(200);
      expect(byAuthor.body.nodes.some((n: { author: string }) => n.author === 'Zed')).toBe(true);
    });

    it('paginates', async () => {
      const res = await t.http.get(`/nodes?search=${tag}&limit=2&page=2`).expect(200);
      expect(res.body).toMatchObject({ total: 7, page: 2, limit: 2, totalPages: 4 });
      expect(res.body.nodes.map((n: { id: string }) => n.id)).toEqual([described, named]);
    });

    it('treats LIKE wildcards in the search as text', async () => {
      const res = await t.http.get(`/nodes?search=${encodeURIComponent('%_')}`).expect(200);
      expect(res.body.total).toBe(0);
    });

    it.each(['limit=1001', 'limit=0', 'page=0', 'limit=abc', 'page=1.5'])('rejects %s with 400', async (query) => {
      await t.http.get(`/nodes?${query}`).expect(400);
    });

    it('answers a page far beyond the last with an empty page, up to page 2147483647; beyond that, says the limit', async () => {
      const far = await t.http.get('/nodes?page=2147483647&limit=1000').expect(200);
      expect(far.body).toMatchObject({ nodes: [], page: 2147483647, limit: 1000 });
      expect((await t.http.get('/proxy/video/tasks?page=2147483647').set(outsider.auth).expect(200)).body.tasks).toEqual([]);
      const beyond = await t.http.get('/nodes?page=2147483648').expect(400);
      expect(beyond.body.message).toBe('page must not be greater than 2147483647');
    });
  });
});
