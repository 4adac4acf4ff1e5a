import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ComfyNodeExtractionFailureEntity } from '../src/nodes/comfy-nodes/entities/comfy-node-extraction-failure.entity';
import { ComfyNodeEntity } from '../src/nodes/comfy-nodes/entities/comfy-node.entity';
import { ArchiveReview } from '../src/nodes/review/archive-review';
import { VersionReviewService } from '../src/nodes/review/version-review.service';
import { NodeVersionEntity } from '../src/nodes/entities/node-version.entity';
import { expectErrorBody } from './support/error-body';
import { expectNoNulls } from './support/no-nulls';
import { publishWithCli } from './support/registry-clients';
import { addVersions, createPublisherWithNode, PublisherFixture } from './support/registry-fixtures';
import { reviewed, until, uploadArchive, versionOf } from './support/archive-uploads';
import { TestApp, TestUser } from './support/test-app';
import { makeZip } from './support/zip';
import { waitFor } from './support/server-process';

/** Class names no other test (nor another suite sharing a PostgreSQL database) uses. */
const prefix = () => `T${randomBytes(4).toString('hex')}_`;

/**
 * A pack as published: `__init__.py` maps classes defined in two other
 * modules, in each shape ComfyUI packs use (a literal dict, `.update({…})`,
 * a subscript assignment), plus a dict comprehension whose keys exist only
 * when the code runs, which extraction must skip.
 */
function pack(p: string): Buffer {
  return makeZip({
    'pack/__init__.py': `from .nodes import ImageBlur, ImageSharpen
from . import more

NODE_CLASS_MAPPINGS = {
    "${p}ImageBlur+": ImageBlur,
    "${p}ImageSharpen": ImageSharpen,
}
NODE_CLASS_MAPPINGS.update({"${p}Latent Scale": more.LatentScale})
NODE_CLASS_MAPPINGS["${p}Subscript"] = more.Subscripted
NODE_CLASS_MAPPINGS.update({f"${p}Dynamic{i}": more.Dynamic for i in range(3)})

NODE_DISPLAY_NAME_MAPPINGS = {
    "${p}ImageBlur+": "Image Blur (plus)",
    "${p}Latent Scale": "Latent Scale",
}
`,
    'pack/nodes.py': `class ImageBlur:
    @classmethod
    def INPUT_TYPES(cls):
        return {"required": {"image": ("IMAGE",), "radius": ("INT", {"default": 1})}}

    RETURN_TYPES = ("IMAGE",)
    RETURN_NAMES = ("image",)
    FUNCTION = "blur"
    CATEGORY = "image/filters"

    def blur(self, image, radius):
        return (image,)


class ImageSharpen:
    RETURN_TYPES = ("IMAGE", "MASK")
    FUNCTION = "sharpen"
    CATEGORY = "image/filters"
    DEPRECATED = True
`,
    'pack/more.py': `class LatentScale:
    RETURN_TYPES = ("LATENT",)
    OUTPUT_IS_LIST = (True,)
    FUNCTION = "scale"
    CATEGORY = "latent"
    EXPERIMENTAL = True


class Subscripted:
    FUNCTION = "run"
    CATEGORY = "utils"


class Dynamic:
    FUNCTION = "run"
`,
  });
}

/** What GET …/comfy-nodes shows for pack(p), in name order (byte order: upper case before lower, '+' and ' ' as they are). */
const packClasses = (p: string) => [
  {
    comfy_node_name: `${p}ImageBlur+`,
    category: 'image/filters',
    description: 'Image Blur (plus)',
    function: 'blur',
    return_types: '["IMAGE"]',
    return_names: '["image"]',
  },
  { comfy_node_name: `${p}ImageSharpen`, category: 'image/filters', function: 'sharpen', return_types: '["IMAGE","MASK"]', deprecated: true },
  {
    comfy_node_name: `${p}Latent Scale`,
    category: 'latent',
    description: 'Latent Scale',
    function: 'scale',
    return_types: '["LATENT"]',
    output_is_list: [true],
    experimental: true,
  },
  { comfy_node_name: `${p}Subscript`, category: 'utils', function: 'run' },
];

describe('Node classes ("comfy nodes", docs/api-rules.md §9.3)', () => {
  let t: TestApp;
  let baseUrl: string;
  let admin: TestUser;

  beforeAll(async () => {
    t = await TestApp.start();
    baseUrl = await t.listen();
    admin = await t.createUser({ admin: true });
  });
  afterAll(() => t?.close());

  const classesUrl = (f: PublisherFixture, version: string) => `/nodes/${f.nodeId}/versions/${version}/comfy-nodes`;
  const providerUrl = (name: string) => `/comfy-nodes/${encodeURIComponent(name)}/node`;
  const classNames = async (f: PublisherFixture, version: string) =>
    (await t.http.get(`${classesUrl(f, version)}?limit=100`).set(f.owner.auth).expect(200)).body.comfy_nodes.map(
      (comfyNode: { comfy_node_name: string }) => comfyNode.comfy_node_name,
    );
  const failureReason = async (versionId: string) =>
    (await t.dataSource.getRepository(ComfyNodeExtractionFailureEntity).findOneBy({ nodeVersionId: versionId }))?.reason;

  const report = (f: PublisherFixture, version: string, body: object, user: TestUser = f.member) =>
    t.http.post(classesUrl(f, version)).set(user.auth).send(body);

  it('extracts the classes of an archive the CLI uploads, and serves them by version and by class', async () => {
    const f = await createPublisherWithNode(t);
    const p = prefix();
    const published = await publishWithCli(
      baseUrl,
      { token: f.member.token, publisherId: f.publisherId, node: { id: f.nodeId }, version: { version: '1.0.0', dependencies: [] } },
      pack(p),
    );
    expect(published.upload?.status).toBe(200);
    // The upload's reply does not wait for the review (its checks and the extraction, docs/api-rules.md §10).
    expect(published.upload?.body).toMatchObject({ status: 'NodeVersionStatusPending', status_reason: 'its archive is being checked', app_node_extract_status: 'pending' });

    const version = await reviewed(t, f, '1.0.0');
    expect(version).toMatchObject({ status: 'NodeVersionStatusActive', app_node_extract_status: 'success' });
    expect(version).not.toHaveProperty('status_reason');
    const all = await t.http.get(`${classesUrl(f, '1.0.0')}?limit=100`).expect(200);
    expect(all.body).toEqual({ comfy_nodes: packClasses(p), totalNumberOfPages: 1 });
    expectNoNulls(all.body);

    // Paging, by name; the version may also be named by its id.
    const versionId = published.publish.body.node_version as { id: string };
    const first = await t.http.get(`/nodes/${f.nodeId}/versions/${versionId.id}/comfy-nodes?page=1&limit=3`).expect(200);
    expect(first.body).toEqual({ comfy_nodes: packClasses(p).slice(0, 3), totalNumberOfPages: 2 });
    const second = await t.http.get(`${classesUrl(f, '1.0.0')}?page=2&limit=3`).expect(200);
    expect(second.body).toEqual({ comfy_nodes: packClasses(p).slice(3), totalNumberOfPages: 2 });
    expect((await t.http.get(`${classesUrl(f, '1.0.0')}?page=3&limit=3`).expect(200)).body).toEqual({ comfy_nodes: [], totalNumberOfPages: 2 });
    expect((await t.http.get(classesUrl(f, '1.0.0')).expect(200)).body.comfy_nodes).toHaveLength(4);
    await t.http.get(`${classesUrl(f, '1.0.0')}?limit=101`).expect(400);

    // The node that provides a class: the same reply as GET /nodes/{id}.
    const node = (await t.http.get(`/nodes/${f.nodeId}`).expect(200)).body;
    for (const name of [`${p}ImageBlur+`, `${p}Latent Scale`, `${p}Subscript`]) {
      expect((await t.http.get(providerUrl(name)).expect(200)).body).toEqual(node);
    }
    // Keys that exist only when the code runs are not classes; nor is an unknown or differently cased name.
    for (const name of [`${p}Dynamic0`, `${p}imageblur+`, `${p}Unknown`]) {
      expectErrorBody((await t.http.get(providerUrl(name)).expect(404)).body, 404, 'Not Found');
    }
  });

  it('404 in the contract body for an unknown or deleted node or version', async () => {
    const f = await createPublisherWithNode(t);
    await addVersions(t, f, '1.0.0', '2.0.0');
    const expect404 = async (path: string, message: string) => {
      const res = await t.http.get(path).expect(404);
      expectErrorBody(res.body, 404, 'Not Found');
      expect(res.body.message).toContain(message);
    };
    await expect404('/nodes/no-such-node/versions/1.0.0/comfy-nodes', 'no-such-node');
    await expect404(classesUrl(f, '9.9.9'), "version '9.9.9'");
    await t.http.put(`/publishers/${f.publisherId}/nodes/${f.nodeId}/versions/2.0.0`).set(admin.auth).send({ status: 'NodeVersionStatusDeleted', status_reason: 'withdrawn' }).expect(200);
    await expect404(classesUrl(f, '2.0.0'), "version '2.0.0'");
    expect((await t.http.get(classesUrl(f, '1.0.0')).expect(200)).body).toEqual({ comfy_nodes: [], totalNumberOfPages: 0 });
    await t.http.put(`/publishers/${f.publisherId}/nodes/${f.nodeId}`).set(admin.auth).send({ status: 'NodeStatusDeleted' }).expect(200);
    await expect404(classesUrl(f, '1.0.0'), f.nodeId);
  });

  it('an archive whose Python does not parse: the upload succeeds, the extraction fails with its reason, nothing else changes', async () => {
    const f = await createPublisherWithNode(t);
    await addVersions(t, f, '1.0.0');
    const uploaded = await uploadArchive(t, f, '1.0.0', makeZip({ 'pack/__init__.py': 'NODE_CLASS_MAPPINGS = {"Broken": Broken\ndef (:\n' }));
    const version = await reviewed(t, f, '1.0.0');
    expect(version).toMatchObject({ app_node_extract_status: 'failed', status: 'NodeVersionStatusActive', downloadUrl: uploaded.downloadUrl });
    expect(await classNames(f, '1.0.0')).toEqual([]);
    const reason = await failureReason(uploaded.id);
    expect(reason).toEqual(expect.any(String));
    // Still active: the failed extraction is only an `info` finding, named in the reason (docs/api-rules.md §10).
    expect(version.status_reason).toBe(`passed with notes: no-node-classes (no node classes found: ${reason})`);
    const node = (await t.http.get(`/nodes/${f.nodeId}`).expect(200)).body;
    expect(node.latest_version).toMatchObject({ version: '1.0.0', downloadUrl: uploaded.downloadUrl });
  });

  it('an archive whose Python holds a NUL or an unpaired surrogate: that class or attribute is left out, the rest stored', async () => {
    const f = await createPublisherWithNode(t);
    await addVersions(t, f, '1.0.0');
    const python = [
      'class Kept:',
      '    CATEGORY = "bad\\x00category"',
      '    FUNCTION = "run"',
      'NODE_CLASS_MAPPINGS = {"Kept": Kept, "Nul\\x00Name": Kept, "Half\\ud800": Kept}',
      'NODE_DISPLAY_NAME_MAPPINGS = {"Kept": "Shown\\udfff"}',
    ].join('\n');
    await uploadArchive(t, f, '1.0.0', makeZip({ 'pack/__init__.py': python }));
    // Never left pending: on PostgreSQL the NUL made every attempt to store the classes fail.
    const version = await reviewed(t, f, '1.0.0');
    expect(version).toMatchObject({ app_node_extract_status: 'success', status: 'NodeVersionStatusActive' });
    const { body } = await t.http.get(classesUrl(f, '1.0.0')).expect(200);
    expect(body.comfy_nodes).toHaveLength(1);
    expect(body.comfy_nodes[0]).toMatchObject({ comfy_node_name: 'Kept', function: 'run' });
    expect(body.comfy_nodes[0]).not.toHaveProperty('category');
    expect(body.comfy_nodes[0]).not.toHaveProperty('description');
  });

  it('picks the node whose latest version provides a class: preempted first, then search_ranking, downloads, id', async () => {
    const name = `${prefix()}Shared Node`;
    const [a, b, c] = [await createPublisherWithNode(t), await createPublisherWithNode(t), await createPublisherWithNode(t)];
    for (const f of [a, b, c]) {
      await addVersions(t, f, '1.0.0');
      await report(f, '1.0.0', { nodes: { [name]: {} } }).expect(204);
    }
    // c's latest version no longer provides it: an older version does not count.
    await addVersions(t, c, '2.0.0');
    const setNode = (f: PublisherFixture, body: object) =>
      t.http.put(`/publishers/${f.publisherId}/nodes/${f.nodeId}`).set(admin.auth).send(body).expect(200);
    const provider = async () => (await t.http.get(providerUrl(name)).set(admin.auth).expect(200)).body.id as string;
    await setNode(c, { search_ranking: 9 });
    await setNode(a, { search_ranking: 5 });
    await setNode(b, { search_ranking: 7 });
    expect(await provider()).toBe(b.nodeId);
    await setNode(a, { preempted_app_node_names: ['Other', name] });
    expect(await provider()).toBe(a.nodeId);
    // Listed nodes only.
    await setNode(a, { status: 'NodeStatusBanned' });
    expect(await provider()).toBe(b.nodeId);
    await setNode(b, { status: 'NodeStatusDeleted' });
    await t.http.get(providerUrl(name)).expect(404);
  });

  it('an anonymous lookup shows the choice by downloads soon after the installs (its cache is kept as briefly as GET /nodes/{id}’s)', async () => {
    const name = `${prefix()}Installed Node`;
    const [first, second] = [await createPublisherWithNode(t), await createPublisherWithNode(t)].sort((x, y) => (x.nodeId < y.nodeId ? -1 : 1));
    for (const f of [first, second]) {
      await addVersions(t, f, '1.0.0');
      await uploadArchive(t, f, '1.0.0', makeZip({ '__init__.py': `NODE_CLASS_MAPPINGS = {${JSON.stringify(name)}: object}\n` }));
      expect(await reviewed(t, f, '1.0.0')).toMatchObject({ status: 'NodeVersionStatusActive' });
    }
    const provider = async () => (await t.http.get(providerUrl(name)).expect(200)).body as { id: string; downloads: number };
    expect((await provider()).id).toBe(first.nodeId);
    for (let i = 0; i < 3; i++) await t.http.get(`/nodes/${second.nodeId}/install`).expect(200);
    // The counts are flushed a second at a time: the provider may switch on a flush that holds only some of them.
    let shown = await provider();
    await waitFor(async () => (shown = await provider()).id === second.nodeId && shown.downloads === 3, 5_000, 'the most installed pack to provide the class');
    expect(shown).toMatchObject({ id: second.nodeId, downloads: 3 });
  });

  describe('POST …/comfy-nodes (a publisher reports its classes)', () => {
    let f: PublisherFixture;
    let versionId: string;

    beforeEach(async () => {
      f = await createPublisherWithNode(t);
      versionId = (await addVersions(t, f, '1.0.0'))['1.0.0'];
    });

    it('replaces the version’s classes and sets its extraction status, for members and admins', async () => {
      const upscale = {
        comfy_node_name: 'Upscale',
        category: 'image/upscaling',
        description: 'Upscale 4x',
        function: 'upscale',
        input_types: '{"required":{"image":["IMAGE"]}}',
        return_types: '["IMAGE"]',
        return_names: '["upscaled"]',
        output_is_list: [false],
        deprecated: false,
        experimental: true,
      };
      const first = await report(f, '1.0.0', {
        success: true,
        cloud_build_info: { build_id: 'b-1', location: 'us' },
        // The policy is accepted and not kept (the public registry's field; nothing here acts on it).
        nodes: { Upscale: { ...upscale, policy: 'ComfyNodePolicyActive' }, 'A plain one': {} },
      });
      expect(first.status).toBe(204);
      expect(first.text).toBe('');
      expect((await t.http.get(classesUrl(f, '1.0.0')).expect(200)).body.comfy_nodes).toEqual([{ comfy_node_name: 'A plain one' }, upscale]);
      expect((await versionOf(t, f, '1.0.0')).app_node_extract_status).toBe('success');

      await report(f, '1.0.0', { success: false, reason: 'could not import torch' }, f.owner).expect(204);
      expect(await classNames(f, '1.0.0')).toEqual([]);
      expect((await versionOf(t, f, '1.0.0')).app_node_extract_status).toBe('failed');
      expect(await failureReason(versionId)).toBe('could not import torch');

      await report(f, versionId, { status: 'success', nodes: { Other: {} } }, admin).expect(204);
      expect(await classNames(f, '1.0.0')).toEqual(['Other']);
      expect((await versionOf(t, f, '1.0.0')).app_node_extract_status).toBe('success');
      expect(await failureReason(versionId)).toBeUndefined();
    });

    it('401 without a token, 403 for a non-member, 404 for an unknown node or version; nothing written', async () => {
      await report(f, '1.0.0', { nodes: { Kept: {} } }).expect(204);
      const anonymous = await t.http.post(classesUrl(f, '1.0.0')).send({ nodes: { X: {} } }).expect(401);
      expectErrorBody(anonymous.body, 401, 'Unauthorized');
      expect(anonymous.headers['www-authenticate']).toBe('Bearer');
      const stranger = await t.createUser();
      expectErrorBody((await report(f, '1.0.0', { nodes: { X: {} } }, stranger).expect(403)).body, 403, 'Forbidden');
      const other = await createPublisherWithNode(t);
      await report(f, '1.0.0', { nodes: { X: {} } }, other.owner).expect(403);
      expectErrorBody((await report(f, '9.9.9', { nodes: { X: {} } }).expect(404)).body, 404, 'Not Found');
      await t.http.post('/nodes/no-such-node/versions/1.0.0/comfy-nodes').set(f.member.auth).send({ nodes: {} }).expect(404);
      expect(await classNames(f, '1.0.0')).toEqual(['Kept']);
    });

    it.each([
      ['nodes that is not an object', { nodes: ['X'] }, 'nodes'],
      ['a class that is not an object', { nodes: { X: 'IMAGE' } }, 'nodes'],
      ['a class that is an array', { nodes: { X: [{ category: 'image', function: 'run' }] } }, 'each value in nodes must be an object'],
      ['an unknown field of a class', { nodes: { X: { colour: 'red' } } }, 'colour'],
      ['a wrong type', { nodes: { X: { deprecated: 'yes' } } }, 'nodes.X.deprecated'],
      ['return_types that is not JSON text', { nodes: { X: { return_types: '[IMAGE' } } }, 'nodes.X.return_types'],
      ['an empty class name', { nodes: { '': {} } }, 'class name'],
      ['a class name with a NUL', { nodes: { 'A\u0000B': {} } }, 'property names in nodes must not contain NUL characters'],
      ['a class name with an unpaired surrogate', { nodes: { '\ud800x': {} } }, 'property names in nodes must be well-formed Unicode'],
      ['a comfy_node_name that is not its key', { nodes: { X: { comfy_node_name: 'Y' } } }, 'comfy_node_name'],
      ['a status success contradicts', { success: false, status: 'success' }, 'contradicts'],
      ['an unknown status', { status: 'done' }, 'status'],
      ['an unknown field', { nodes: {}, succes: true }, 'succes'],
      ['a report that is not a failure without nodes (an empty body)', {}, 'nodes is required'],
      ['a successful report without nodes', { success: true, status: 'success' }, 'nodes is required'],
      ['a successful report with nodes null', { nodes: null }, 'nodes is required'],
    ])('400 for %s, naming it; nothing written', async (_, body, named) => {
      await report(f, '1.0.0', { nodes: { Kept: {} } }).expect(204);
      const res = await report(f, '1.0.0', body).expect(400);
      expectErrorBody(res.body, 400, 'Bad Request');
      expect(res.body.message).toContain(named);
      expect(await classNames(f, '1.0.0')).toEqual(['Kept']);
    });

    it('413 for a report of more than 1,000 classes, refused before any is validated; nothing written', async () => {
      await report(f, '1.0.0', { nodes: { Kept: {} } }).expect(204);
      const nodes = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`Class${i}`, {}]));
      const res = await report(f, '1.0.0', { nodes }).expect(413);
      expectErrorBody(res.body, 413, 'Payload Too Large');
      expect(res.body.message).toBe('request body has an object of more than 1000 members');
      expect(await classNames(f, '1.0.0')).toEqual(['Kept']);
    });

    it('400 for a body that is not JSON', async () => {
      const res = await t.http.post(classesUrl(f, '1.0.0')).set(f.member.auth).set('Content-Type', 'application/json').send('{"nodes": {').expect(400);
      expectErrorBody(res.body, 400, 'Bad Request');
    });

    it('overrides the extraction: one that finishes after the report writes nothing', async () => {
      const p = prefix();
      const zip = pack(p);
      await uploadArchive(t, f, '1.0.0', zip);
      await report(f, '1.0.0', { nodes: { Reported: {} } }).expect(204);
      // Whenever the upload's own extraction finishes, before the report or after it, the report stands.
      expect(await reviewed(t, f, '1.0.0')).toMatchObject({ status: 'NodeVersionStatusActive' });
      expect(await classNames(f, '1.0.0')).toEqual(['Reported']);
      const { archiveSha256, version } = await t.dataSource.getRepository(NodeVersionEntity).findOneByOrFail({ id: versionId });
      await t.app
        .get(VersionReviewService)
        .recordReview({ versionId, version, sha256: archiveSha256 ?? '' }, { status: 'success', classes: [{ name: `${p}ImageBlur+` }] }, []);
      expect(await classNames(f, '1.0.0')).toEqual(['Reported']);
      expect((await versionOf(t, f, '1.0.0')).app_node_extract_status).toBe('success');
    });
  });

  it('public reads cached before an extraction show its classes once it is stored', async () => {
    const f = await createPublisherWithNode(t);
    await addVersions(t, f, '1.0.0');
    const { id } = await uploadArchive(t, f, '1.0.0', pack(prefix()));
    await reviewed(t, f, '1.0.0');
    // Back to how the upload left it, behind the service's back (no write through the API empties the cache).
    await t.dataSource.getRepository(NodeVersionEntity).update({ id }, { appNodeExtractStatus: 'pending' });
    await t.dataSource.getRepository(ComfyNodeEntity).delete({ nodeVersionId: id });
    const anonymous = () => t.http.get(classesUrl(f, '1.0.0')).expect(200);
    expect((await anonymous()).body.comfy_nodes).toEqual([]);
    expect((await anonymous()).body.comfy_nodes).toEqual([]); // served from the cache from now on
    await t.app.get(ArchiveReview).sweep();
    const after = await until(anonymous, (res) => res.body.comfy_nodes.length > 0);
    expect(after.body.comfy_nodes).toHaveLength(4);
  });

  it('resumes at startup an extraction that a stopped instance left pending', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'comfy-nodes-restart-'));
    // Two instances one after the other on the same database and archive store.
    const env = { STORAGE_DIR: dir, ...(process.env.TEST_DATABASE_URL ? {} : { DATABASE_URL: `sqlite:${join(dir, 'registry.db')}` }) };
    try {
      const p = prefix();
      const first = await TestApp.start(env);
      const f = await createPublisherWithNode(first);
      await addVersions(first, f, '1.0.0');
      const { id } = (await first.http
        .put(`/publishers/${f.publisherId}/nodes/${f.nodeId}/versions/1.0.0/archive`)
        .set(f.member.auth)
        .set('Content-Type', 'application/zip')
        .send(pack(p))
        .expect(200)).body as { id: string };
      await reviewed(first, f, '1.0.0');
      // As a process leaves it that stops after the upload's transaction and before the extraction's.
      await first.dataSource.getRepository(NodeVersionEntity).update({ id }, { appNodeExtractStatus: 'pending' });
      await first.dataSource.getRepository(ComfyNodeEntity).delete({ nodeVersionId: id });
      await first.close();

      const second = await TestApp.start(env);
      try {
        expect(await reviewed(second, f, '1.0.0')).toMatchObject({ app_node_extract_status: 'success' });
        const classes = await second.http.get(`/nodes/${f.nodeId}/versions/1.0.0/comfy-nodes`).expect(200);
        expect(classes.body).toEqual({ comfy_nodes: packClasses(p), totalNumberOfPages: 1 });
      } finally {
        await second.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('documents the routes: integers as integers, the report body’s classes by name', async () => {
    const doc = (await t.http.get('/docs-json').expect(200)).body;
    expect(Object.keys(doc.paths['/nodes/{nodeId}/versions/{version}/comfy-nodes'])).toEqual(expect.arrayContaining(['get', 'post']));
    expect(doc.paths['/comfy-nodes/{comfyNodeName}/node'].get.responses['200']).toBeDefined();
    expect(doc.components.schemas.ComfyNodeListDto.properties.totalNumberOfPages.type).toBe('integer');
    expect(doc.components.schemas.CreateComfyNodesDto.properties.nodes.additionalProperties).toEqual({ $ref: '#/components/schemas/ComfyNodeInputDto' });
    expect(doc.components.schemas.ComfyNodeDto.required).toEqual(['comfy_node_name']);
  });
});
