import { PublisherFixture } from './registry-fixtures';
import { TestApp } from './test-app';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `read()` until `done` holds of its value, for at most 10 s; the last value read. */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await sleep(50);
  }
}

/** A member's archive upload (PUT …/versions/{v}/archive), replied to before the archive's review runs. */
export async function uploadArchive(t: TestApp, f: PublisherFixture, version: string, zip: Buffer): Promise<{ id: string; downloadUrl: string; status: string }> {
  const res = await t.http
    .put(`/publishers/${f.publisherId}/nodes/${f.nodeId}/versions/${version}/archive`)
    .set(f.member.auth)
    .set('Content-Type', 'application/zip')
    .send(zip)
    .expect(200);
  return res.body as { id: string; downloadUrl: string; status: string };
}

/** A node and one of its publisher's owners (a PublisherFixture, or a node the CLI created for the fixture's publisher). */
export type OwnedNode = Pick<PublisherFixture, 'nodeId' | 'owner'>;

/** The version as its owner reads it (a token bypasses the read cache). */
export async function versionOf(t: TestApp, f: OwnedNode, version: string): Promise<Record<string, unknown>> {
  return (await t.http.get(`/nodes/${f.nodeId}/versions/${version}`).set(f.owner.auth).expect(200)).body as Record<string, unknown>;
}

/** The version once its archive's review is over (its checks and its node classes), or as it is after 10 s. */
export function reviewed(t: TestApp, f: OwnedNode, version: string): Promise<Record<string, unknown>> {
  return until(
    () => versionOf(t, f, version),
    (body) => body.status !== 'NodeVersionStatusPending' && body.app_node_extract_status !== 'pending',
  );
}
