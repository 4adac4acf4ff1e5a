import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeVersionEntity } from '../src/nodes/entities/node-version.entity';
import { reviewed } from './support/archive-uploads';
import { addVersions, createPublisherWithNode } from './support/registry-fixtures';
import { TestApp } from './support/test-app';
import { makeZip } from './support/zip';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/**
 * A version's downloadUrl is made for each reply from PUBLIC_BASE_URL or the
 * reading request's origin (docs/decisions.md), never stored: what an
 * uploader's request said its host was reaches nobody else. Two apps one
 * after the other on one database (not at once: they would share passport's
 * strategies).
 */
describe('downloadUrl of an archive', () => {
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'archive-links-'));
    env = { DATABASE_URL: process.env.TEST_DATABASE_URL ?? `sqlite:${join(dir, 'registry.db')}`, STORAGE_DIR: dir };
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('is on the reader’s origin, then on PUBLIC_BASE_URL once it is set, for archives stored before too', async () => {
    const zip = makeZip({ '__init__.py': '# hosted\n' });
    const link = `/archives/${sha256(zip)}.zip`;
    const first = await TestApp.start(env);
    let nodeId: string;
    try {
      const origin = await first.listen();
      const f = await createPublisherWithNode(first);
      nodeId = f.nodeId;
      await addVersions(first, f, '1.0.0');
      const path = `/publishers/${f.publisherId}/nodes/${f.nodeId}/versions/1.0.0/archive`;
      const spoofed = await first.http.put(path).set(f.member.auth).set('Host', 'attacker.example').set('Content-Type', 'application/zip').send(zip).expect(200);
      // The uploader's own reply is on the origin it named; nobody else's is.
      expect(spoofed.body.downloadUrl).toBe(`http://attacker.example${link}`);
      await reviewed(first, f, '1.0.0');
      // An anonymous read with that Host first, so that a read cache keyed without the origin would hand it on.
      await first.http.get(`/nodes/${f.nodeId}/versions/1.0.0`).set('Host', 'attacker.example').expect(200);
      expect((await first.http.get(`/nodes/${f.nodeId}/versions/1.0.0`).expect(200)).body.downloadUrl).toBe(`${origin}${link}`);
      expect((await first.http.get(`/nodes/${f.nodeId}/install`).expect(200)).body.downloadUrl).toBe(`${origin}${link}`);
      // A Host that is not a host carries nothing into links, nor into the cache's keys (where it could pose as a path).
      const smuggled = await first.http.get(`/nodes/${f.nodeId}/versions/1.0.0`).set('Host', 'evil.example/x').expect(200);
      expect(smuggled.body.downloadUrl).toBe(`http://localhost${link}`);
      await first.http.get('/nodes').set('Host', `${new URL(origin).host}/publishers/${f.publisherId}`).expect(200);
      expect(Array.isArray((await first.http.get(`/publishers/${f.publisherId}/nodes`).expect(200)).body)).toBe(true);
      const stored = await first.dataSource.getRepository(NodeVersionEntity).findOneByOrFail({ nodeId: f.nodeId, version: '1.0.0' });
      expect(stored).toMatchObject({ archiveSha256: sha256(zip), downloadUrl: null });
    } finally {
      await first.close();
    }

    const second = await TestApp.start({ ...env, PUBLIC_BASE_URL: 'https://registry.example.com/api' });
    try {
      const install = await second.http.get(`/nodes/${nodeId}/install`).expect(200);
      expect(install.body.downloadUrl).toBe(`https://registry.example.com/api${link}`);
      const page = await second.http.get(`/nodes?node_id=${nodeId}`).set('Host', 'attacker.example').expect(200);
      expect(page.body.nodes[0].latest_version.downloadUrl).toBe(`https://registry.example.com/api${link}`);
    } finally {
      await second.close();
    }
  });

  it('keeps a link an admin set on a version without an archive, as it was given', async () => {
    const t = await TestApp.start(env);
    try {
      const f = await createPublisherWithNode(t);
      const admin = await t.createUser({ admin: true });
      const external = 'https://mirror.example.com/pack-1.0.0.zip';
      await t.http.post(`/publishers/${f.publisherId}/nodes/${f.nodeId}/versions`).set(admin.auth).send({ version: '1.0.0', downloadUrl: external }).expect(201);
      expect((await t.http.get(`/nodes/${f.nodeId}/install`).expect(200)).body.downloadUrl).toBe(external);
    } finally {
      await t.close();
    }
  });
});
