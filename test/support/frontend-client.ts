/**
 * The host app's frontend, reduced to the registry requests it sends
 * (docs/api-rules.md §9): plain fetch against a listening server, query
 * arrays repeated (`node_id=a&node_id=b`, as its axios instance serializes
 * them with qs `arrayFormat: "repeat"`), replies read as its generated types
 * describe them (every field optional).
 */

export type QueryValue = string | number | boolean | readonly string[] | undefined;

export interface FrontendReply<T> {
  status: number;
  body: T;
}

export interface FrontendNode {
  id?: string;
  name?: string;
  repository?: string;
  supported_os?: string[];
  supported_accelerators?: string[];
  status?: string;
  publisher?: { id?: string; name?: string };
  latest_version?: { version?: string; supported_app_version?: string; downloadUrl?: string };
}

export interface FrontendNodePage {
  nodes?: FrontendNode[];
  total?: number;
  page?: number;
  limit?: number;
  totalPages?: number;
}

export interface FrontendBulkResult {
  identifier?: { node_id?: string; version?: string };
  status?: 'success' | 'not_found' | 'error';
  node_version?: { version?: string; node_id?: string };
  error_message?: string;
}

/** A query string as qs `arrayFormat: "repeat"` writes it; undefined values are left out. */
export function frontendQuery(params: Record<string, QueryValue>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) query.append(name, String(item));
  }
  const text = query.toString();
  return text ? `?${text}` : '';
}

export class FrontendClient {
  constructor(
    private readonly baseUrl: string,
    private readonly token?: string,
  ) {}

  /** The same client signed in (the frontend sends the user's token when there is one). */
  signedIn(token: string): FrontendClient {
    return new FrontendClient(this.baseUrl, token);
  }

  private async send<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<FrontendReply<T>> {
    const headers: Record<string, string> = body === undefined ? {} : { 'Content-Type': 'application/json' };
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as T };
  }

  /** searchNodes: the registry page's search box and filters. */
  searchNodes(params: Record<string, QueryValue>): Promise<FrontendReply<FrontendNodePage>> {
    return this.send('GET', `/nodes/search${frontendQuery(params)}`);
  }

  /** listAllNodes: packs by id (`node_id`), sorted and filtered lists. */
  listAllNodes(params: Record<string, QueryValue>): Promise<FrontendReply<FrontendNodePage>> {
    return this.send('GET', `/nodes${frontendQuery(params)}`);
  }

  /** listNodesForPublisher: a publisher's page. */
  listNodesForPublisher(publisherId: string, params: Record<string, QueryValue> = {}): Promise<FrontendReply<FrontendNode[]>> {
    return this.send('GET', `/publishers/${encodeURIComponent(publisherId)}/nodes${frontendQuery(params)}`);
  }

  /** getBulkNodeVersions: what it knows of the installed packs' versions. */
  getBulkNodeVersions(pairs: Array<{ node_id: string; version: string }>): Promise<FrontendReply<{ node_versions?: FrontendBulkResult[] }>> {
    return this.send('POST', '/bulk/nodes/versions', { node_versions: pairs });
  }

  /** getNodeByComfyNodeName: "install missing nodes" asks which pack provides a workflow's node class. */
  getNodeByComfyNodeName(name: string): Promise<FrontendReply<FrontendNode>> {
    return this.send('GET', `/comfy-nodes/${encodeURIComponent(name)}/node`);
  }
}
