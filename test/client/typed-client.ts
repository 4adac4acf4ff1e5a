/**
 * A real client of the published OpenAPI document: types generated from
 * /docs-json by openapi-typescript (into ./generated, by
 * test/typed-client.e2e-spec.ts), requests made with openapi-fetch, compiled
 * with `tsc --strict`. It drives the four operations of the interface (and
 * two calls that leave out what has a default) and prints what it saw as one JSON line. It also checks, at compile time, that
 * the replies fit the frontend's types of the public registry
 * (./public-registry-types.ts).
 *
 * Usage: node typed-client.js <baseUrl> <token> <publisherId> <nodeId> <version>
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './generated/schema';
import type {
  PublicBulkNodeVersionsResponse,
  PublicComfyNode,
  PublicComfyNodePage,
  PublicNode,
  PublicNodePage,
  PublicNodeVersion,
  PublicPublisher,
  PublicPublisherMember,
} from './public-registry-types';

type Schemas = components['schemas'];

/**
 * Compiles only when every value of the reply type fits the frontend's type:
 * a reply field typed `T | null`, or of another type than the public
 * registry's, fails here.
 */
type Fits<Reply extends Frontend, Frontend> = [Reply, Frontend];
export type RepliesFitThePublicRegistry = [
  Fits<Schemas['NodeDto'], PublicNode>,
  Fits<Schemas['NodeVersionDto'], PublicNodeVersion>,
  Fits<Schemas['PublisherDto'], PublicPublisher>,
  Fits<Schemas['PublisherMemberDto'], PublicPublisherMember>,
  Fits<Schemas['NodeListDto'], PublicNodePage>,
  Fits<Schemas['ComfyNodeDto'], PublicComfyNode>,
  Fits<Schemas['ComfyNodeListDto'], PublicComfyNodePage>,
  Fits<Schemas['BulkNodeVersionsDto'], PublicBulkNodeVersionsResponse>,
];

async function main(): Promise<void> {
  const [baseUrl, token, publisherId, nodeId, version] = process.argv.slice(2);
  const client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${token}` } });

  const updated = await client.PUT('/publishers/{publisherId}/nodes/{nodeId}', {
    params: { path: { publisherId, nodeId } },
    body: { description: 'updated by a generated client', tags: ['typed'] },
  });
  // Held as the frontend holds it, in the public registry's type.
  const node: PublicNode | undefined = updated.data;

  const changed = await client.PUT('/publishers/{publisherId}/nodes/{nodeId}/versions/{versionId}', {
    params: { path: { publisherId, nodeId, versionId: version } },
    body: { changelog: 'written by a generated client', deprecated: true },
  });

  const reviewed = await client.POST('/nodes/{nodeId}/reviews', { params: { path: { nodeId }, query: { star: 5 } } });

  const task = await client.POST('/proxy/video/reference2video', {
    params: { header: { 'Idempotency-Key': `typed-${nodeId}` } },
    body: { model: 'videoq2-turbo', duration: 2, prompt: 'a typed lighthouse' },
  });

  // What has a default may be left out: paging parameters, a body of optional fields.
  const listed = await client.GET('/nodes');
  const created = await client.POST('/users/me/tokens');

  // Errors are typed too: the contract's error body.
  const missing = await client.PUT('/publishers/{publisherId}/nodes/{nodeId}', {
    params: { path: { publisherId, nodeId: 'no-such-node' } },
    body: { description: 'x' },
  });

  if (false as boolean) {
    // The generated types are strict: these must not compile (tsc fails on an unused @ts-expect-error).
    // @ts-expect-error star is a number
    await client.POST('/nodes/{nodeId}/reviews', { params: { path: { nodeId }, query: { star: 'five' } } });
    // @ts-expect-error unknown operation
    await client.GET('/no/such/path');
    // @ts-expect-error duration is a number
    await client.POST('/proxy/video/reference2video', { body: { duration: '2' } });
  }

  console.log(
    JSON.stringify({
      node: { status: updated.response.status, id: node?.id, description: node?.description, tags: node?.tags },
      version: { status: changed.response.status, changelog: changed.data?.changelog, deprecated: changed.data?.deprecated },
      review: { status: reviewed.response.status, rating: reviewed.data?.rating },
      task: { status: task.response.status, taskId: task.data?.task_id, credits: task.data?.credits },
      missing: { status: missing.response.status, message: missing.error?.message },
      listed: { status: listed.response.status, page: listed.data?.page, limit: listed.data?.limit },
      token: { status: created.response.status, created: typeof created.data?.token === 'string' },
    }),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
