import { BadRequestException, Injectable, NotFoundException } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Principal } from '../../auth/principal';
import { offsetOf, PageQueryDto, totalPages } from '../../common/pagination/page-query.dto';
import { TransactionRunner } from '../../database/transaction-runner';
import { NodeDto } from '../dto/node.dto';
import { NodeVersionEntity } from '../entities/node-version.entity';
import { NodesRepository } from '../nodes.repository';
import { NodesService } from '../nodes.service';
import { ComfyNodesRepository } from './comfy-nodes.repository';
import { ComfyNodeInputDto, ComfyNodeListDto, CreateComfyNodesDto } from './dto/comfy-node.dto';
import { toComfyNodeDto } from './dto/comfy-node.mapper';
import { ComfyNodeEntity } from './entities/comfy-node.entity';
import { AppNodeExtractOutcome, EXTRACT_PENDING } from './extract-status';
import { ExtractedNodeClass, ExtractionResult } from './extraction/extract-node-classes';

/** A class name's length limit (the `name` column's). */
const MAX_NAME_LENGTH = 256;

/** A class's fields as the replies name them, whichever way they were learnt. */
type ComfyNodeFields = Omit<ComfyNodeInputDto, 'comfy_node_name' | 'policy'>;

/** A version's extraction status and, when it failed, why (if known). */
export interface ExtractionState {
  status: string | null;
  reason: string | null;
}

/** What a version's extraction came to, as found in its archive or as its publisher reported it: its classes by name, its status and, when it failed, why (if known). */
interface ExtractionOutcome {
  classes: Map<string, ComfyNodeFields>;
  status: AppNodeExtractOutcome;
  reason: string | null;
}

const isValidName = (name: string): boolean => name.length > 0 && name.length <= MAX_NAME_LENGTH;

/** A list as the replies send it: a string holding JSON text. */
const jsonText = (list: string[] | undefined): string | undefined => (list === undefined ? undefined : JSON.stringify(list));

function extractedFields(found: ExtractedNodeClass): ComfyNodeFields {
  return {
    category: found.category,
    description: found.description,
    function: found.function,
    return_types: jsonText(found.returnTypes),
    return_names: jsonText(found.returnNames),
    output_is_list: found.outputIsList,
    deprecated: found.deprecated,
    experimental: found.experimental,
  };
}

/**
 * An extractor's result as an outcome: `success` needs at least one class
 * (docs/api-rules.md §9.3). Names a workflow could not use as a class
 * name here (empty, or longer than the column) are left out.
 */
function outcomeOfExtraction(result: ExtractionResult): ExtractionOutcome {
  const classes = new Map(result.classes.filter((found) => isValidName(found.name)).map((found) => [found.name, extractedFields(found)]));
  if (result.status === 'success' && classes.size > 0) return { classes, status: 'success', reason: null };
  return { classes, status: 'failed', reason: result.reason ?? 'no NODE_CLASS_MAPPINGS entry with a literal name was found' };
}

/** A publisher's report as an outcome: 400 for what the DTO's rules cannot see. */
function outcomeOfRequest(input: CreateComfyNodesDto): ExtractionOutcome {
  const implied = input.success === false ? 'failed' : 'success';
  if (input.status !== undefined && input.success !== undefined && input.status !== implied) {
    throw new BadRequestException(`status '${input.status}' contradicts success ${String(input.success)}`);
  }
  const nodes = input.nodes ?? new Map<string, ComfyNodeInputDto>();
  const classes = new Map<string, ComfyNodeFields>();
  for (const [name, { comfy_node_name, policy: _policy, ...fields }] of nodes) {
    if (!isValidName(name)) {
      throw new BadRequestException(`nodes: class name '${name.slice(0, 80)}' must be 1-${MAX_NAME_LENGTH} characters`);
    }
    if (comfy_node_name !== undefined && comfy_node_name !== name) {
      throw new BadRequestException(`nodes.${name}.comfy_node_name '${comfy_node_name}' differs from its key`);
    }
    classes.set(name, fields);
  }
  const status = input.status ?? implied;
  // Without it, a stray empty POST would erase the classes and still say the extraction succeeded.
  if (status === 'success' && input.nodes == null) throw new BadRequestException(`nodes is required unless the report is a failure: the version's classes by name ({} for none)`);
  return { classes, status, reason: status === 'failed' ? (input.reason ?? null) : null };
}

function toEntity(nodeVersionId: string, name: string, fields: ComfyNodeFields): ComfyNodeEntity {
  return Object.assign(new ComfyNodeEntity(), {
    nodeVersionId,
    name,
    category: fields.category ?? null,
    description: fields.description ?? null,
    function: fields.function ?? null,
    inputTypes: fields.input_types ?? null,
    returnTypes: fields.return_types ?? null,
    returnNames: fields.return_names ?? null,
    outputIsList: fields.output_is_list ?? null,
    deprecated: fields.deprecated ?? null,
    experimental: fields.experimental ?? null,
  });
}

/**
 * Node classes ("comfy nodes", docs/api-rules.md §9.3): a version's classes,
 * the node providing a class, and the two ways a version's set is written —
 * its publisher's report, and the extraction from its archive, which a
 * report overrides (an extraction writes only while the version still waits
 * for it).
 */
@Injectable()
export class ComfyNodesService {
  constructor(
    private readonly repository: ComfyNodesRepository,
    private readonly nodes: NodesService,
    private readonly nodeRows: NodesRepository,
    private readonly tx: TransactionRunner,
  ) {}

  /** GET /nodes/{nodeId}/versions/{version}/comfy-nodes: 404 where GET /nodes/{nodeId}/versions/{version} is. */
  async list(nodeId: string, version: string, { page, limit }: PageQueryDto, caller?: Principal): Promise<ComfyNodeListDto> {
    const { id } = await this.nodes.requireVisibleVersion(nodeId, version, caller);
    const [classes, total] = await this.repository.findPage(id, offsetOf({ page, limit }), limit);
    return { comfy_nodes: classes.map(toComfyNodeDto), totalNumberOfPages: totalPages(total, limit) };
  }

  /**
   * GET /comfy-nodes/{name}/node: among the listed nodes whose latest
   * version provides the class, the first that names it in
   * `preempted_app_node_names`, else the first in the listing's order.
   */
  async nodeProviding(name: string, origin: string): Promise<NodeDto> {
    const candidates = await this.nodeRows.nodesWithLatestVersionIn(await this.repository.versionIdsListing(name));
    const provider = candidates.find((node) => node.preemptedAppNodeNames.includes(name)) ?? candidates[0];
    if (!provider) throw new NotFoundException(`no node provides node class '${name}'`);
    const [dto] = await this.nodes.toDtos([provider], origin);
    return dto;
  }

  /**
   * POST /nodes/{nodeId}/versions/{version}/comfy-nodes: the publisher's
   * members and admins replace the version's classes and set its
   * `app_node_extract_status`, whatever an extraction found or will find.
   */
  async report(caller: Principal, nodeId: string, version: string, input: CreateComfyNodesDto): Promise<void> {
    const outcome = outcomeOfRequest(input);
    await this.tx.run(async (manager) => {
      const found = await this.nodeRows.findNode(nodeId.toLowerCase(), manager);
      if (!found) throw new NotFoundException(`node '${nodeId}' not found`);
      const node = await this.nodes.lockPublisherNode(manager, caller, found.publisherId, nodeId);
      await this.record(manager, await this.nodes.findWritableVersion(manager, caller, node, version), outcome);
    });
  }

  /**
   * Stores an extraction's result for the version's current archive, in the
   * caller's transaction (which holds the version's node lock), unless the
   * version no longer waits for it (its publisher reported its classes):
   * then nothing is written. The version's extraction status, as it now is.
   */
  async recordExtraction(manager: EntityManager, version: NodeVersionEntity, result: ExtractionResult): Promise<ExtractionState> {
    if (version.appNodeExtractStatus !== EXTRACT_PENDING) {
      return { status: version.appNodeExtractStatus, reason: await this.repository.failureReason(manager, version.id) };
    }
    const outcome = outcomeOfExtraction(result);
    await this.record(manager, version, outcome);
    return { status: outcome.status, reason: outcome.reason };
  }

  /** Writes an outcome, in a transaction holding the version's node lock. */
  private async record(manager: EntityManager, version: NodeVersionEntity, { classes, status, reason }: ExtractionOutcome): Promise<void> {
    await this.repository.replace(manager, version.id, [...classes].map(([name, fields]) => toEntity(version.id, name, fields)));
    await this.repository.setFailureReason(manager, version.id, reason);
    await this.nodeRows.updateVersion(manager, version.id, { appNodeExtractStatus: status, updatedAt: new Date() });
  }
}
