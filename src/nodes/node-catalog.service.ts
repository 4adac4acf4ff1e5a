import { BadRequestException, Injectable } from '@nestjs/common';
import { ArchivesService } from '../archives/archives.service';
import { Principal } from '../auth/principal';
import { offsetOf, PageQueryDto, pageOf } from '../common/pagination/page-query.dto';
import { BulkNodeVersionResultDto, BulkNodeVersionsDto, NodeVersionIdentifierDto } from './dto/bulk-versions.dto';
import { CatalogQueryDto, MAX_NODE_ID_FILTER, NodeListDto, NodeListQueryDto, NodeSearchQueryDto } from './dto/node.dto';
import { toNodeVersionDto } from './dto/node.mapper';
import { parseCatalogSort } from './catalog-sort';
import { ComfyNodesRepository } from './comfy-nodes/comfy-nodes.repository';
import { compatibilityTargetOf } from './compatibility/compatible-version';
import { ACCELERATOR_FAMILIES, OS_FAMILIES, spellingsOfFamily } from './compatibility/platforms';
import { CLOSE_MATCH_MIN_LENGTH, CLOSE_MATCH_THRESHOLD, closerFirst, closeness } from './search/fuzzy-match';
import { NodeListFilter, NodeListOrder, NodePage, NodesRepository } from './nodes.repository';
import { NodesService } from './nodes.service';
import { instantOf } from './sync-timestamp';

/** How many nodes close to a search term are scored (CatalogSearch.closeTo): those sharing most trigrams with it. */
const CLOSE_MATCH_CANDIDATES = 200;

/** The `node_id` filter's lower-cased ids (both spellings of the parameter); 400 past MAX_NODE_ID_FILTER. */
function nodeIdFilter(query: NodeListQueryDto): string[] | undefined {
  const ids = [...(query.node_id ?? []), ...(query['node_id[]'] ?? [])];
  if (ids.length > MAX_NODE_ID_FILTER) {
    throw new BadRequestException(`node_id takes at most ${MAX_NODE_ID_FILTER} values (${ids.length} given)`);
  }
  return ids.length > 0 ? [...new Set(ids.map((id) => id.toLowerCase()))] : undefined;
}

/**
 * The public catalog's reads (docs/api-rules.md §3, §9): pages of nodes
 * filtered, sorted or searched, the typo-tolerant search and the bulk version
 * lookup. Replies are built by NodesService.toDtos, as every node reply is.
 */
@Injectable()
export class NodeCatalogService {
  constructor(
    private readonly nodes: NodesRepository,
    private readonly nodesService: NodesService,
    private readonly comfyNodes: ComfyNodesRepository,
    private readonly archives: ArchivesService,
  ) {}

  /** GET /nodes (docs/api-rules.md §3, §6, §9.1). */
  async list(query: NodeListQueryDto, origin: string, caller?: Principal): Promise<NodeListDto> {
    const filter: NodeListFilter = {
      ...this.platformFilter(query, caller),
      search: query.search || undefined,
      changedAfter: query.timestamp === undefined ? undefined : instantOf(query.timestamp),
      normalizedIds: nodeIdFilter(query),
    };
    const order: NodeListOrder = query.sort ? { by: 'sort', keys: parseCatalogSort(query.sort) } : { by: 'listing' };
    const page = await this.nodes.listNodes(filter, order);
    await this.nodesService.chooseCompatibleVersions(page.nodes, compatibilityTargetOf(query));
    return this.toPage(page, query, origin);
  }

  /**
   * GET /nodes/search (docs/api-rules.md §9.2): by relevance to `search`; when a
   * term long enough to carry a typo matches nothing, the nodes whose id or
   * name is close to it, closest first.
   */
  async search(query: NodeSearchQueryDto, origin: string, caller?: Principal): Promise<NodeListDto> {
    const filter: NodeListFilter = {
      ...this.platformFilter(query, caller),
      search: query.search || undefined,
      repositorySearch: query.repository_url_search || undefined,
      providingVersionIds: query.comfy_node_search ? this.comfyNodes.versionsProvidingLike(query.comfy_node_search) : undefined,
    };
    const term = filter.search;
    let page = await this.nodes.listNodes(filter, term ? { by: 'relevance', term } : { by: 'listing' });
    if (page.total === 0 && term && [...term].length >= CLOSE_MATCH_MIN_LENGTH) {
      page = await this.closeTo(term, filter);
    }
    return this.toPage(page, query, origin);
  }

  /**
   * The listed nodes close to `term` (fuzzy-match.ts), closest first, ties
   * in the candidates' order (most shared trigrams, then the listing's),
   * paged as `filter` says.
   */
  private async closeTo(term: string, filter: NodeListFilter): Promise<NodePage> {
    const candidates = await this.nodes.closeToCandidates(term, filter, CLOSE_MATCH_CANDIDATES);
    const close = candidates
      .map((candidate) => ({ id: candidate.id, closeness: closeness(term, [candidate.id, candidate.name]) }))
      .filter((candidate) => candidate.closeness.word >= CLOSE_MATCH_THRESHOLD)
      .sort((a, b) => closerFirst(a.closeness, b.closeness));
    const ids = close.slice(filter.offset, filter.offset + filter.limit).map(({ id }) => id);
    return { nodes: await this.nodes.nodesInOrder(ids), total: close.length };
  }

  /** The platform and ban filters, and the page, that catalog reads and searches share. */
  private platformFilter(query: CatalogQueryDto, caller: Principal | undefined): NodeListFilter {
    return {
      os: query.supported_os ? spellingsOfFamily(OS_FAMILIES, query.supported_os) : undefined,
      accelerator: query.supported_accelerator ? spellingsOfFamily(ACCELERATOR_FAMILIES, query.supported_accelerator) : undefined,
      includeBanned: query.include_banned === true && caller?.isAdmin === true,
      offset: offsetOf(query),
      limit: query.limit,
    };
  }

  private async toPage({ nodes, total }: NodePage, query: PageQueryDto, origin: string): Promise<NodeListDto> {
    return pageOf(total, 'nodes', await this.nodesService.toDtos(nodes, origin), query);
  }

  /**
   * POST /bulk/nodes/versions: each pair's version, in request order;
   * `not_found` for what public reads do not show, `error` for a banned
   * node or version. Two queries whatever the number of pairs.
   */
  async bulkVersions(pairs: NodeVersionIdentifierDto[], origin: string): Promise<BulkNodeVersionsDto> {
    const links = this.archives.linksFor(origin);
    const nodes = new Map((await this.nodes.findNodes(pairs.map((pair) => pair.node_id.toLowerCase()))).map((node) => [node.normalizedId, node]));
    const wanted = pairs.flatMap((pair) => {
      const node = nodes.get(pair.node_id.toLowerCase());
      return node ? [{ nodeId: node.id, version: pair.version }] : [];
    });
    const versions = await this.nodes.findVersionsByNumber(wanted);
    const results = pairs.map((identifier): BulkNodeVersionResultDto => {
      const node = nodes.get(identifier.node_id.toLowerCase());
      const version = node && versions.find((found) => found.nodeId === node.id && found.version === identifier.version);
      if (!node || node.status === 'NodeStatusDeleted' || !version || version.status === 'NodeVersionStatusDeleted') {
        return { identifier, status: 'not_found' };
      }
      if (node.status === 'NodeStatusBanned' || version.status === 'NodeVersionStatusBanned') {
        return { identifier, status: 'error', error_message: node.status === 'NodeStatusBanned' ? 'node banned' : 'version banned' };
      }
      return { identifier, status: 'success', node_version: toNodeVersionDto(version, links) };
    });
    return { node_versions: results };
  }
}
