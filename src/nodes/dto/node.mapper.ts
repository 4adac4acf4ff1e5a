import { BadRequestException } from '@nestjs/common';
import { ArchiveLinks } from '../../archives/archive-links';
import { MIB } from '../../common/http/json-body-limits';
import { mergePatch } from '../../common/validation/merge-patch';
import { absentIfNull } from '../../common/replies/omit-absent';
import { toPublisherDto } from '../../publishers/dto/publisher.mapper';
import { PublisherEntity } from '../../publishers/entities/publisher.entity';
import { NodeVersionEntity } from '../entities/node-version.entity';
import { NodeEntity } from '../entities/node.entity';
import { NodeDto, NodeFieldsDto } from './node.dto';
import { NodeVersionDto } from './node-version.dto';

// Each reply is one object literal (see absentIfNull): a catalog page maps every node through here. The
// compatibility and tag fields a node and its versions share are written out in both, in the same order,
// rather than spread from a helper's object, which would be built and copied per node.

/** A version as every route shows it; `links` makes the link of its archive, if it has one (else an admin's downloadUrl). */
export function toNodeVersionDto(version: NodeVersionEntity, links: ArchiveLinks): NodeVersionDto {
  return {
    id: version.id,
    node_id: version.nodeId,
    version: version.version,
    changelog: absentIfNull(version.changelog),
    dependencies: version.dependencies,
    deprecated: version.deprecated,
    downloadUrl: version.archiveSha256 === null ? absentIfNull(version.downloadUrl) : links(version.archiveSha256),
    status: version.status,
    status_reason: absentIfNull(version.statusReason),
    app_node_extract_status: absentIfNull(version.appNodeExtractStatus),
    supported_os: version.supportedOs,
    supported_accelerators: version.supportedAccelerators,
    supported_app_version: absentIfNull(version.supportedAppVersion),
    supported_app_frontend_version: absentIfNull(version.supportedAppFrontendVersion),
    tags: version.tags,
    tags_admin: version.tagsAdmin,
    createdAt: version.createdAt.toISOString(),
  };
}

/** The full node as every route shows it (a single GET, a catalog page, a write's reply); expects `latestVersion` loaded. */
export function toNodeDto(node: NodeEntity, publisher: PublisherEntity, links: ArchiveLinks): NodeDto {
  return {
    id: node.id,
    name: node.name,
    description: absentIfNull(node.description),
    author: absentIfNull(node.author),
    category: absentIfNull(node.category),
    license: absentIfNull(node.license),
    icon: absentIfNull(node.icon),
    banner_url: absentIfNull(node.bannerUrl),
    repository: absentIfNull(node.repository),
    homepage: absentIfNull(node.homepage),
    supported_os: node.supportedOs,
    supported_accelerators: node.supportedAccelerators,
    supported_app_version: absentIfNull(node.supportedAppVersion),
    supported_app_frontend_version: absentIfNull(node.supportedAppFrontendVersion),
    tags: node.tags,
    tags_admin: node.tagsAdmin,
    preempted_app_node_names: node.preemptedAppNodeNames,
    translations: absentIfNull(node.translations),
    status: node.status,
    status_detail: absentIfNull(node.statusDetail),
    search_ranking: node.searchRanking,
    downloads: node.downloads,
    github_stars: node.githubStars,
    rating: node.rating,
    created_at: node.createdAt.toISOString(),
    publisher: toPublisherDto(publisher),
    latest_version: node.latestVersion ? toNodeVersionDto(node.latestVersion, links) : undefined,
  };
}

/** A node field a request may write, as the request names it. */
export type NodeField = keyof NodeFieldsDto | 'name';

/**
 * Request field → entity property, for every node field a request may write:
 * a merge-patch (docs/api-rules.md §3.1) sets each field it gives.
 */
export const NODE_FIELD_PROPERTIES: Record<NodeField, keyof NodeEntity> = {
  name: 'name',
  description: 'description',
  author: 'author',
  category: 'category',
  license: 'license',
  icon: 'icon',
  banner_url: 'bannerUrl',
  repository: 'repository',
  homepage: 'homepage',
  tags: 'tags',
  supported_os: 'supportedOs',
  supported_accelerators: 'supportedAccelerators',
  supported_app_version: 'supportedAppVersion',
  supported_app_frontend_version: 'supportedAppFrontendVersion',
  translations: 'translations',
  status: 'status',
  status_detail: 'statusDetail',
  tags_admin: 'tagsAdmin',
  search_ranking: 'searchRanking',
  preempted_app_node_names: 'preemptedAppNodeNames',
};

const ARRAY_FIELDS = new Set<NodeField>([
  'tags',
  'supported_os',
  'supported_accelerators',
  'tags_admin',
  'preempted_app_node_names',
]);

/** Fields whose object value is merged into the stored one (RFC 7396), not put in its place. */
export const MERGED_FIELDS = new Set<NodeField>(['translations']);

/** What a merged field may hold once merged: one request's worth, so PUT after PUT cannot grow it without end. */
const MAX_MERGED_BYTES = MIB;

/** The value a merge-patch field sets over `current`: null clears (arrays become empty), a merged field's object is merged. */
export function patchValue(field: NodeField, value: unknown, current: unknown): unknown {
  if (value === null) return ARRAY_FIELDS.has(field) ? [] : null;
  if (!MERGED_FIELDS.has(field)) return value;
  const merged = mergePatch(current, value);
  if (Buffer.byteLength(JSON.stringify(merged)) > MAX_MERGED_BYTES) {
    throw new BadRequestException(`${field} would be larger than 1 MiB of JSON once merged`);
  }
  return merged;
}
