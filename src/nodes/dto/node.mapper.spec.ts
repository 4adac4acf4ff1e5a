import { PublisherEntity } from '../../publishers/entities/publisher.entity';
import { NodeVersionEntity } from '../entities/node-version.entity';
import { NodeEntity } from '../entities/node.entity';
import { toNodeDto } from './node.mapper';

function publisher(): PublisherEntity {
  return Object.assign(new PublisherEntity(), {
    id: 'acme',
    name: 'Acme',
    description: null,
    website: 'https://acme.example',
    support: null,
    sourceCodeRepo: null,
    logo: null,
    createdAt: new Date('2026-01-02T03:04:05.006Z'),
  });
}

function version(): NodeVersionEntity {
  return Object.assign(new NodeVersionEntity(), {
    id: 'v1',
    nodeId: 'upscaler',
    version: '1.10.0',
    changelog: null,
    dependencies: ['numpy'],
    deprecated: false,
    downloadUrl: null,
    archiveSha256: null,
    status: 'NodeVersionStatusActive',
    statusReason: null,
    appNodeExtractStatus: null,
    supportedOs: [],
    supportedAccelerators: ['cuda'],
    supportedAppVersion: null,
    supportedAppFrontendVersion: '>=1.2',
    tags: [],
    tagsAdmin: [],
    createdAt: new Date('2026-02-03T04:05:06.007Z'),
  });
}

function node(latestVersion: NodeVersionEntity | null): NodeEntity {
  return Object.assign(new NodeEntity(), {
    id: 'Upscaler',
    normalizedId: 'upscaler',
    publisherId: 'acme',
    name: 'Upscaler',
    description: 'Upscales images',
    author: null,
    category: null,
    license: 'MIT',
    icon: null,
    bannerUrl: null,
    repository: 'https://github.com/acme/upscaler',
    supportedOs: ['linux'],
    supportedAccelerators: [],
    supportedAppVersion: null,
    supportedAppFrontendVersion: null,
    tags: ['image'],
    tagsAdmin: [],
    preemptedAppNodeNames: [],
    translations: null,
    status: 'NodeStatusActive',
    statusDetail: null,
    searchRanking: 2,
    downloads: 10,
    githubStars: 0,
    rating: 4.333333333333333,
    latestVersionId: latestVersion?.id ?? null,
    createdAt: new Date('2026-03-04T05:06:07.008Z'),
    updatedAt: new Date('2026-03-05T00:00:00.000Z'),
    latestVersion,
  });
}

/** For versions without an archive, whose link these tests do not need. */
const unusedLinks = (): string => {
  throw new Error('no archive here');
};

describe('toNodeDto', () => {
  // The reply's bytes are the contract: the same keys in the same order, nothing null, absent fields left out.
  it('serializes a node with its publisher and latest version without the fields that have no value', () => {
    expect(JSON.stringify(toNodeDto(node(version()), publisher(), unusedLinks))).toBe(
      '{"id":"Upscaler","name":"Upscaler","description":"Upscales images","license":"MIT",' +
        '"repository":"https://github.com/acme/upscaler","supported_os":["linux"],"supported_accelerators":[],' +
        '"tags":["image"],"tags_admin":[],"preempted_app_node_names":[],"status":"NodeStatusActive",' +
        '"search_ranking":2,"downloads":10,"github_stars":0,"rating":4.333333333333333,"created_at":"2026-03-04T05:06:07.008Z",' +
        '"publisher":{"id":"acme","name":"Acme","website":"https://acme.example","createdAt":"2026-01-02T03:04:05.006Z"},' +
        '"latest_version":{"id":"v1","node_id":"upscaler","version":"1.10.0","dependencies":["numpy"],"deprecated":false,' +
        '"status":"NodeVersionStatusActive","supported_os":[],"supported_accelerators":["cuda"],' +
        '"supported_app_frontend_version":">=1.2","tags":[],"tags_admin":[],"createdAt":"2026-02-03T04:05:06.007Z"}}',
    );
  });

  it('leaves latest_version out when the node has none', () => {
    const reply = JSON.parse(JSON.stringify(toNodeDto(node(null), publisher(), unusedLinks))) as Record<string, unknown>;
    expect('latest_version' in reply).toBe(false);
    expect(Object.values(reply)).not.toContain(null);
  });
});
