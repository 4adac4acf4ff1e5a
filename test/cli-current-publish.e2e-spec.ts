import { reviewed } from './support/archive-uploads';
import { expectErrorBody } from './support/error-body';
import { expectNoNulls } from './support/no-nulls';
import { PublishRequest, publishWithCli } from './support/registry-clients';
import { createPublisherWithNode, PublisherFixture } from './support/registry-fixtures';
import { TestApp, unique } from './support/test-app';
import { makeZip } from './support/zip';

/** The pyproject.toml fields the CLI sends in both `node` and `node_version`, under its own names. */
interface ProjectFields {
  supported_os: string[];
  supported_accelerators: string[];
  supported_comfyui_version: string;
  supported_comfyui_frontend_version: string;
  /** Not sent by the CLI: a client that also sends this API's names. */
  supported_app_version?: string;
  supported_app_frontend_version?: string;
}

/** The publish body of the CLI's current release (comfy_cli/registry/api.py), beyond what PublishRequest names. */
interface CurrentCliRequest extends PublishRequest {
  node: PublishRequest['node'] & ProjectFields & { banner_url: string };
  version: PublishRequest['version'] & ProjectFields;
}

/** What the CLI sends for a pyproject.toml that leaves them unset: "" and [], meaning "not given" (docs/api-rules.md §9.0). */
const UNSET: ProjectFields = { supported_os: [], supported_accelerators: [], supported_comfyui_version: '', supported_comfyui_frontend_version: '' };

const CLASSIFIED: ProjectFields = {
  supported_os: ['Microsoft :: Windows', 'POSIX :: Linux'],
  supported_accelerators: ['GPU :: NVIDIA CUDA', 'GPU :: Intel Arc'],
  supported_comfyui_version: '>=0.3.0',
  supported_comfyui_frontend_version: '>=1.2.0,<2.0.0',
};

/** CLASSIFIED as this API stores and replies it. */
const STORED = {
  supported_os: CLASSIFIED.supported_os,
  supported_accelerators: CLASSIFIED.supported_accelerators,
  supported_app_version: '>=0.3.0',
  supported_app_frontend_version: '>=1.2.0,<2.0.0',
};

const CLI_NAMES = ['supported_comfyui_version', 'supported_comfyui_frontend_version'];

describe('Publishing with the CLI’s current body: its field names, empty values and classifiers (docs/api-rules.md §9.0)', () => {
  let t: TestApp;
  let baseUrl: string;
  let f: PublisherFixture;
  let nodeId: string;

  beforeAll(async () => {
    t = await TestApp.start();
    baseUrl = await t.listen();
  });
  beforeEach(async () => {
    f = await createPublisherWithNode(t);
    nodeId = unique('cli-node');
  });
  afterAll(() => t?.close());

  /** The body the CLI builds: the project's fields in both parts, "" for the metadata left unset, license as JSON text. */
  const cliRequest = (version: string, project: Partial<ProjectFields> = {}, banner_url = ''): CurrentCliRequest => {
    const fields = { ...UNSET, ...project };
    return {
      token: f.member.token,
      publisherId: f.publisherId,
      node: { id: nodeId, description: '', icon: '', name: 'CLI Node', license: '{"text": "MIT"}', repository: '', banner_url, ...fields },
      version: { version, dependencies: ['numpy'], ...fields },
    };
  };
  const publish = (request: CurrentCliRequest) => publishWithCli(baseUrl, request, makeZip({ '__init__.py': `# ${request.version.version}\n` }));
  const getNode = async () => (await t.http.get(`/nodes/${nodeId}`).expect(200)).body as Record<string, unknown>;
  const getVersion = (version: string) => t.http.get(`/nodes/${nodeId}/versions/${version}`);

  it('accepts the CLI’s names and classifier tails, replies and stores them under this API’s names, as sent', async () => {
    const { publish: reply, upload } = await publish(cliRequest('1.0.0', CLASSIFIED, 'https://example.com/banner.png'));
    expect(reply.status).toBe(201);
    expect(reply.body.node_version).toMatchObject({ version: '1.0.0', status: 'NodeVersionStatusPending', dependencies: ['numpy'], ...STORED });
    // Stored, and pending until the archive's review (docs/api-rules.md §10); then active.
    expect(upload).toEqual({
      status: 200,
      body: expect.objectContaining({ version: '1.0.0', status: 'NodeVersionStatusPending', status_reason: 'its archive is being checked', ...STORED }),
    });
    expect((await reviewed(t, { nodeId, owner: f.owner }, '1.0.0')).status).toBe('NodeVersionStatusActive');

    const node = await getNode();
    expect(node).toMatchObject({ id: nodeId, name: 'CLI Node', license: '{"text": "MIT"}', banner_url: 'https://example.com/banner.png', ...STORED });
    expect(node.latest_version).toMatchObject({ version: '1.0.0', status: 'NodeVersionStatusActive', ...STORED });
    // The CLI's "" for the description, icon and repository: no value.
    for (const unset of ['description', 'icon', 'repository']) expect(node).not.toHaveProperty(unset);
    const version = (await getVersion('1.0.0').expect(200)).body as Record<string, unknown>;
    expect(version).toMatchObject({ ...STORED, downloadUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/archives\/[0-9a-f]{64}\.zip$/) });

    for (const body of [reply.body.node_version, upload?.body, node, version]) {
      for (const name of CLI_NAMES) expect(body).not.toHaveProperty(name);
      expectNoNulls(body);
    }
  });

  it('takes "" and [] as not given: defaults for a new node and version, an existing node’s values kept', async () => {
    const bare = await publish(cliRequest('1.0.0'));
    expect([bare.publish.status, bare.upload?.status]).toEqual([201, 200]);
    const defaults = { supported_os: [], supported_accelerators: [] };
    expect(bare.publish.body.node_version).toMatchObject(defaults);
    expect(await getNode()).toMatchObject(defaults);
    for (const body of [bare.publish.body.node_version, await getNode()]) {
      for (const unset of ['supported_app_version', 'supported_app_frontend_version', 'banner_url']) expect(body).not.toHaveProperty(unset);
    }

    expect((await publish(cliRequest('1.1.0', CLASSIFIED, 'https://example.com/banner.png'))).publish.status).toBe(201);
    const again = await publish(cliRequest('1.2.0'));
    expect(again.publish.status).toBe(201);
    expect(again.publish.body.node_version).toMatchObject(defaults);
    // An empty list is "not given" too (read literally), so it does not clear the node's list.
    expect(await getNode()).toMatchObject({ banner_url: 'https://example.com/banner.png', ...STORED });

    // A list that is given replaces the node's whole (merge-patch).
    const independent = await publish(cliRequest('1.3.0', { supported_os: ['OS Independent'] }));
    expect(independent.publish.status).toBe(201);
    expect(await getNode()).toMatchObject({ ...STORED, supported_os: ['OS Independent'] });
    expect((await getVersion('1.3.0').expect(200)).body).toMatchObject({ supported_os: ['OS Independent'], supported_accelerators: [] });
  });

  it('refuses both names of a field with different values in the contract’s error body, writing nothing', async () => {
    const inNode = cliRequest('1.0.0', CLASSIFIED);
    inNode.node.supported_app_version = '>=0.4.0';
    const refused = await publish(inNode);
    expect(refused.publish.status).toBe(400);
    expectErrorBody(refused.publish.body, 400, 'Bad Request');
    expect(refused.publish.body.message).toBe('node.supported_comfyui_version and node.supported_app_version name the same field but differ: send one of them');
    await t.http.get(`/nodes/${nodeId}`).expect(404);

    // An existing node: neither the version nor the node's fields are written.
    nodeId = f.nodeId;
    const inVersion = cliRequest('1.0.0', CLASSIFIED);
    inVersion.version.supported_app_frontend_version = '>=1.3.0';
    const alsoRefused = await publish(inVersion);
    expect(alsoRefused.publish.status).toBe(400);
    expectErrorBody(alsoRefused.publish.body, 400, 'Bad Request');
    expect(alsoRefused.publish.body.message).toContain('node_version.supported_comfyui_frontend_version and node_version.supported_app_frontend_version');
    await getVersion('1.0.0').expect(404);
    expect(await getNode()).toMatchObject({ supported_os: [], supported_accelerators: [] });
    expect(await getNode()).not.toHaveProperty('supported_app_version');
  });

  it('accepts both names of a field with the same value', async () => {
    const both = cliRequest('1.0.0', { ...CLASSIFIED, supported_app_version: '>=0.3.0', supported_app_frontend_version: '>=1.2.0,<2.0.0' });
    const { publish: reply, upload } = await publish(both);
    expect([reply.status, upload?.status]).toEqual([201, 200]);
    expect(reply.body.node_version).toMatchObject(STORED);
    expect(await getNode()).toMatchObject(STORED);
  });
});
