import { omitAbsent } from '../../common/replies/omit-absent';
import { toPublisherDto } from '../../publishers/dto/publisher.mapper';
import { CompatibilityColumns } from '../entities/compatibility-columns';
import { NodeVersionEntity } from '../entities/node-version.entity';
import { NodeEntity } from '../entities/node.entity';
import { NodeDto } from './node.dto';
import { NodeVersionDto } from './node-version.dto';

/** The compatibility and tag fields a node and its versions share. */
function toCompatibilityFields(entity: CompatibilityColumns) {
  return {
    supported_os: entity.supportedOs,
    supported_accelerators: entity.supportedAccelerators,
    supported_app_version: entity.supportedAppVersion,
    supported_app_frontend_version: entity.supportedAppFrontendVersion,
    tags: entity.tags,
    tags_admin: entity.tagsAdmin,
  };
}

export function toNodeVersionDto(version: NodeVersionEntity): NodeVersionDto {
  return omitAbsent({
    id: version.id,
    node_id: version.nodeId,
    version: version.version,
    changelog: version.changelog,
    dependencies: version.dependencies,
    deprecated: version.deprecated,
    downloadUrl: version.downloadUrl,
    status: version.status,
    status_reason: version.statusReason,
    app_node_extract_status: version.appNodeExtractStatus,
    ...toCompatibilityFields(version),
    createdAt: version.createdAt.toISOString(),
  });
}

/** The full node as every route shows it; expects `publisher` and `latestVersion` to be loaded. */
export function toNodeDto(node: NodeEntity): NodeDto {
  if (!node.publisher) {
    throw new Error(`node ${node.id} was loaded without its publisher`);
  }
  return omitAbsent({
    id: node.id,
    name: node.name,
    description: node.description,
    author: node.author,
    category: node.category,
    license: node.license,
    icon: node.icon,
    banner_url: node.bannerUrl,
    repository: node.repository,
    ...toCompatibilityFields(node),
    preempted_app_node_names: node.preemptedAppNodeNames,
    translations: node.translations,
    status: node.status,
    status_detail: node.statusDetail,
    search_ranking: node.searchRanking,
    downloads: node.downloads,
    github_stars: node.githubStars,
    rating: node.rating,
    created_at: node.createdAt.toISOString(),
    publisher: toPublisherDto(node.publisher),
    latest_version: node.latestVersion ? toNodeVersionDto(node.latestVersion) : undefined,
  });
}
