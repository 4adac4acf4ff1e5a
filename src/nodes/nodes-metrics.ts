import { Provider } from '@nestjs/common';
import { makeCounterProvider } from '@willsoto/nestjs-prometheus';
import { makeScrapeGaugeProvider } from '../metrics/scrape-gauge';
import { INSTALLS_COUNTED } from './download-counter';
import { NODE_VERSION_STATUSES } from './entities/node-version.entity';
import { NodesRepository } from './nodes.repository';

/**
 * The registry's figures (docs/decisions.md#metrics): installs this
 * instance counted, and versions by status and archives awaiting their
 * checks, read from the database on scrape.
 */
export const NODES_METRICS: Provider[] = [
  makeCounterProvider({ name: INSTALLS_COUNTED, help: 'Installs counted as downloads (GET /nodes/{nodeId}/install)' }),
  makeScrapeGaugeProvider({
    name: 'registry_node_versions',
    help: 'Node versions by status',
    label: 'status',
    owner: NodesRepository,
    read: async (nodes: NodesRepository) => {
      const counts = await nodes.versionCountsByStatus();
      return new Map(NODE_VERSION_STATUSES.map((status) => [status, counts.get(status) ?? 0]));
    },
  }),
  makeScrapeGaugeProvider({
    name: 'registry_archive_checks_pending',
    help: 'Stored archives whose version still waits for its checks',
    owner: NodesRepository,
    read: (nodes: NodesRepository) => nodes.archiveChecksPending(),
  }),
];
