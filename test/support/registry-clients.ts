/**
 * The public registry's own clients, reduced to the requests they send
 * (docs/api-rules.md §6): the host app's package manager (catalog sync and install)
 * and its publishing CLI. They use plain fetch against a listening server,
 * with exactly the paths, parameters, headers and bodies those clients send,
 * and read the replies the way they do ('key' in obj, not null checks).
 */

export interface CatalogNode {
  id: string;
  name?: string;
  description?: string;
  repository?: string;
  publisher?: { name?: string };
  latest_version?: { version?: string; createdAt?: string };
}

export interface CatalogEntry {
  id: string;
  name?: string;
  description?: string;
  repository?: string;
  publisherName?: string;
  /** The package manager shows a node without a `latest_version` key as "nightly". */
  version: string;
  createdAt?: string;
}

async function getJson(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The package manager's catalog sync: pages of 30 with its version and form factor, merged by id. */
export async function syncCatalog(baseUrl: string, { appVersion = 'v0.3.60', formFactor = 'git-linux' } = {}): Promise<Map<string, CatalogEntry>> {
  const catalog = new Map<string, CatalogEntry>();
  for (let page = 1; ; page++) {
    const query = new URLSearchParams({ page: String(page), limit: '30', comfyui_version: appVersion, form_factor: formFactor });
    const { status, body } = await getJson(`${baseUrl}/nodes?${query.toString()}`);
    if (status !== 200) throw new Error(`catalog page ${page}: HTTP ${status} ${JSON.stringify(body)}`);
    for (const node of body.nodes as CatalogNode[]) {
      const latest = 'latest_version' in node ? node.latest_version : undefined;
      if (latest === null) throw new Error(`node ${node.id}: latest_version is null (the package manager crashes on it)`);
      catalog.set(node.id, {
        id: node.id,
        name: node.name,
        description: node.description,
        repository: node.repository,
        publisherName: node.publisher?.name,
        version: latest ? String(latest.version) : 'nightly',
        createdAt: latest?.createdAt,
      });
    }
    if (page >= (body.totalPages as number)) return catalog;
  }
}

export interface InstallInfo {
  id: string;
  version: string;
  downloadUrl: string;
  changelog?: string;
  dependencies: string[];
  deprecated: boolean;
}

/** The package manager's install: the version record, then the archive from its downloadUrl. */
export async function installNode(baseUrl: string, nodeId: string, version?: string): Promise<{ info: InstallInfo; archive: Buffer }> {
  const query = version === undefined ? '' : `?${new URLSearchParams({ version }).toString()}`;
  const { status, body } = await getJson(`${baseUrl}/nodes/${encodeURIComponent(nodeId)}/install${query}`);
  if (status !== 200) throw new Error(`install ${nodeId}: HTTP ${status} ${JSON.stringify(body)}`);
  const info: InstallInfo = {
    id: body.id as string,
    version: body.version as string,
    downloadUrl: body.downloadUrl as string,
    changelog: 'changelog' in body ? (body.changelog as string) : undefined,
    dependencies: body.dependencies as string[],
    deprecated: body.deprecated as boolean,
  };
  const download = await fetch(info.downloadUrl);
  if (download.status !== 200) throw new Error(`download ${info.downloadUrl}: HTTP ${download.status}`);
  return { info, archive: Buffer.from(await download.arrayBuffer()) };
}

export interface PublishRequest {
  token: string;
  publisherId: string;
  node: { id: string; description?: string; icon?: string; name?: string; license?: string; repository?: string };
  version: { version: string; dependencies: string[] };
}

/** The publishing CLI: the body-token publish (no Authorization header), then one PUT of the zip to signedUrl. */
export async function publishWithCli(
  baseUrl: string,
  request: PublishRequest,
  archive: Buffer,
): Promise<{ publish: { status: number; body: Record<string, unknown> }; upload?: { status: number; body: Record<string, unknown> } }> {
  const response = await fetch(`${baseUrl}/publishers/${request.publisherId}/nodes/${request.node.id}/versions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ personal_access_token: request.token, node: request.node, node_version: request.version }),
  });
  const publish = { status: response.status, body: (await response.json()) as Record<string, unknown> };
  if (publish.status !== 201) return { publish };
  const put = await fetch(publish.body.signedUrl as string, { method: 'PUT', headers: { 'Content-Type': 'application/zip' }, body: archive });
  return { publish, upload: { status: put.status, body: (await put.json()) as Record<string, unknown> } };
}
