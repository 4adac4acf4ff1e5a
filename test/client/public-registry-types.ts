/**
 * The registry's frontend is typed from the public registry's spec
 * (docs/api-rules.md §3): every field optional and
 * non-nullable. Hand-written here as that spec gives them (integers as
 * number, date-times as string, enums as unions), so that
 * typed-client.ts can check our generated reply types fit them: a reply
 * field typed `T | null` does not compile where the frontend expects `T`.
 */

export type PublicNodeStatus = 'NodeStatusActive' | 'NodeStatusDeleted' | 'NodeStatusBanned';

export type PublicNodeVersionStatus =
  | 'NodeVersionStatusActive'
  | 'NodeVersionStatusDeleted'
  | 'NodeVersionStatusBanned'
  | 'NodeVersionStatusPending'
  | 'NodeVersionStatusFlagged';

export interface PublicNodeVersion {
  changelog?: string;
  app_node_extract_status?: string;
  /** date-time */
  createdAt?: string;
  dependencies?: string[];
  deprecated?: boolean;
  downloadUrl?: string;
  id?: string;
  node_id?: string;
  status?: PublicNodeVersionStatus;
  status_reason?: string;
  supported_accelerators?: string[];
  supported_app_frontend_version?: string;
  supported_app_version?: string;
  supported_os?: string[];
  tags?: string[];
  tags_admin?: string[];
  version?: string;
}

export interface PublicPublisherMember {
  id?: string;
  role?: string;
  user?: { email?: string; id?: string; name?: string };
}

export interface PublicPublisher {
  /** date-time */
  createdAt?: string;
  description?: string;
  id?: string;
  logo?: string;
  members?: PublicPublisherMember[];
  name?: string;
  source_code_repo?: string;
  status?: 'PublisherStatusActive' | 'PublisherStatusBanned';
  support?: string;
  website?: string;
}

export interface PublicNode {
  author?: string;
  banner_url?: string;
  /** Deprecated: use tags. */
  category?: string;
  /** date-time */
  created_at?: string;
  description?: string;
  /** integer */
  downloads?: number;
  /** integer */
  github_stars?: number;
  icon?: string;
  id?: string;
  latest_version?: PublicNodeVersion;
  license?: string;
  name?: string;
  preempted_app_node_names?: string[];
  publisher?: PublicPublisher;
  rating?: number;
  repository?: string;
  /** integer */
  search_ranking?: number;
  status?: PublicNodeStatus;
  status_detail?: string;
  supported_accelerators?: string[];
  supported_app_frontend_version?: string;
  supported_app_version?: string;
  supported_os?: string[];
  tags?: string[];
  tags_admin?: string[];
  translations?: Record<string, Record<string, unknown>>;
}

/** A page of nodes, as GET /nodes and GET /nodes/search answer (ListAllNodes200, SearchNodes200). */
export interface PublicNodePage {
  limit?: number;
  nodes?: PublicNode[];
  page?: number;
  total?: number;
  totalPages?: number;
}

export interface PublicComfyNode {
  category?: string;
  comfy_node_name?: string;
  deprecated?: boolean;
  description?: string;
  experimental?: boolean;
  function?: string;
  /** JSON text */
  input_types?: string;
  output_is_list?: boolean[];
  policy?: 'ComfyNodePolicyActive' | 'ComfyNodePolicyBanned' | 'ComfyNodePolicyLocalOnly';
  /** JSON text */
  return_names?: string;
  /** JSON text */
  return_types?: string;
}

/** ListComfyNodes200. */
export interface PublicComfyNodePage {
  comfy_nodes?: PublicComfyNode[];
  totalNumberOfPages?: number;
}

export interface PublicNodeVersionIdentifier {
  node_id: string;
  version: string;
}

export interface PublicBulkNodeVersionResult {
  error_message?: string;
  identifier: PublicNodeVersionIdentifier;
  node_version?: PublicNodeVersion;
  status: 'success' | 'not_found' | 'error';
}

export interface PublicBulkNodeVersionsResponse {
  node_versions: PublicBulkNodeVersionResult[];
}
