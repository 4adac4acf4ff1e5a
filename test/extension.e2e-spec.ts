import { OpenAPIObject } from '@nestjs/swagger';
import { BookmarkEntity } from './example-extension/entities/bookmark.entity';
import { BOOKMARKS_EXTENSION } from './example-extension/bookmarks.module';
import { createPublisherWithNode, PublisherFixture } from './support/registry-fixtures';
import { TestApp, TestUser } from './support/test-app';

/**
 * docs/extending.md, proven: the example module under test/example-extension
 * is written exactly as the guide says and mounted into the real application
 * (same factory, pipeline and migrations), on SQLite and on PostgreSQL.
 */
describe('An extension module mounted into the real app (docs/extending.md)', () => {
  let t: TestApp;
  let f: PublisherFixture;
  let reader: TestUser;

  beforeAll(async () => {
    t = await TestApp.start({}, { extensions: [BOOKMARKS_EXTENSION] });
    f = await createPublisherWithNode(t);
    reader = await t.createUser();
  });
  afterAll(() => t.close());

  const bookmarkRows = () => t.dataSource.getRepository(BookmarkEntity).findBy({ userId: reader.id });

  it('its migration ran with the built-in ones', async () => {
    const migrations = await t.dataSource.query<{ name: string }[]>('SELECT name FROM migrations');
    expect(migrations.map((m) => m.name)).toEqual(expect.arrayContaining(['InitialSchema1763800000000', 'Bookmarks1764100000000']));
  });

  it('its routes are guarded by the shared decorator: 401 in the contract’s error shape without a token', async () => {
    const res = await t.http.put(`/nodes/${f.nodeId}/bookmark`).send({}).expect(401);
    expect(res.body).toEqual(expect.objectContaining({ statusCode: 401, requestId: expect.any(String) }));
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    await t.http.get('/bookmarks').expect(401);
  });

  it('bookmarks a node under its canonical id, persists it, and a second call only updates the note', async () => {
    const created = await t.http
      .put(`/nodes/${f.nodeId.toUpperCase()}/bookmark`)
      .set(reader.auth)
      .send({ note: 'try it' })
      .expect(200);
    expect(created.body).toEqual({ node_id: f.nodeId, note: 'try it', created_at: expect.any(String) });

    const again = await t.http.put(`/nodes/${f.nodeId}/bookmark`).set(reader.auth).send({ note: null }).expect(200);
    expect(again.body).toEqual({ node_id: f.nodeId, created_at: created.body.created_at });
    expect(await bookmarkRows()).toEqual([expect.objectContaining({ nodeId: f.nodeId, note: null })]);

    const list = await t.http.get('/bookmarks').set(reader.auth).expect(200);
    expect(list.body).toEqual([again.body]);
  });

  it('the global validation pipe and filter apply: bad bodies are 400 and change nothing', async () => {
    const before = await bookmarkRows();
    for (const body of [{ note: 'x'.repeat(281) }, { note: 5 }, { unknown: true }]) {
      const res = await t.http.put(`/nodes/${f.nodeId}/bookmark`).set(reader.auth).send(body).expect(400);
      expect(res.body).toEqual(expect.objectContaining({ statusCode: 400, message: expect.any(String) }));
    }
    expect(await bookmarkRows()).toEqual(before);
  });

  it('unknown nodes are 404; deleting twice is 204 then 404', async () => {
    await t.http.put('/nodes/no-such-node/bookmark').set(reader.auth).send({}).expect(404);
    await t.http.delete(`/nodes/${f.nodeId}/bookmark`).set(reader.auth).expect(204);
    expect(await bookmarkRows()).toEqual([]);
    await t.http.delete(`/nodes/${f.nodeId}/bookmark`).set(reader.auth).expect(404);
  });

  it('a bookmark of a node deleted since can still be removed, by any spelling of its id', async () => {
    const g = await createPublisherWithNode(t);
    await t.http.put(`/nodes/${g.nodeId}/bookmark`).set(reader.auth).send({}).expect(200);
    await t.http.delete(`/publishers/${g.publisherId}/nodes/${g.nodeId}`).set(g.owner.auth).expect(204);
    await t.http.put(`/nodes/${g.nodeId}/bookmark`).set(reader.auth).send({}).expect(404);
    await t.http.delete(`/nodes/${g.nodeId.toUpperCase()}/bookmark`).set(reader.auth).expect(204);
    expect(await bookmarkRows()).toEqual([]);
  });

  it('its routes appear in the OpenAPI document with bearer security and typed bodies', async () => {
    const doc = (await t.http.get('/docs-json').expect(200)).body as OpenAPIObject;
    const put = doc.paths['/nodes/{nodeId}/bookmark']?.put;
    expect(put?.security).toEqual([{ bearer: [] }]);
    expect(Object.keys(put?.responses ?? {})).toEqual(expect.arrayContaining(['200', '400', '401', '404']));
    expect(doc.components?.schemas?.BookmarkDto).toEqual(expect.objectContaining({ required: ['node_id', 'created_at'] }));
    expect(doc.components?.schemas?.BookmarkDto).not.toHaveProperty('properties.note.nullable');
    expect(doc.paths['/bookmarks']?.get?.security).toEqual([{ bearer: [] }]);
  });
});
