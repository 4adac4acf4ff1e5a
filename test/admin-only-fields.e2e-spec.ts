import { getMetadataStorage } from 'class-validator';
import { adminOnlyFields } from '../src/common/validation/admin-only';
import { CreateNodeDto, UpdateNodeDto } from '../src/nodes/dto/node.dto';
import { createPublisherWithNode, PublisherFixture } from './support/registry-fixtures';
import { TestApp, unique } from './support/test-app';

/** docs/api-rules.md §3.1: the node fields only admins may change, each with a value that differs from a new node's. */
const CONTRACT_ADMIN_ONLY: Record<string, unknown> = {
  status: 'NodeStatusBanned',
  status_detail: 'spam',
  tags_admin: ['unsafe'],
  search_ranking: 99,
  preempted_app_node_names: ['LoadImage'],
};

/** Every field a request DTO declares (each has at least one validation rule, or the strict pipe would refuse it). */
function fieldsOf(dto: new () => object): Set<string> {
  return new Set(getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false).map((rule) => rule.propertyName));
}

describe('Admin-only node fields are declared on the DTO (@AdminOnly)', () => {
  let t: TestApp;
  let f: PublisherFixture;

  beforeAll(async () => {
    t = await TestApp.start();
    f = await createPublisherWithNode(t);
  });
  afterAll(() => t.close());

  it.each([
    ['update', UpdateNodeDto],
    ['create', CreateNodeDto],
  ])('the %s DTO declares exactly the contract’s admin-only fields, each a field of the DTO', (_name, dto) => {
    const declared = adminOnlyFields<object>(dto);
    expect([...declared].sort()).toEqual(Object.keys(CONTRACT_ADMIN_ONLY).sort());
    const fields = fieldsOf(dto);
    expect(declared.filter((field) => !fields.has(field))).toEqual([]);
  });

  it('a member changing any field the DTO declares admin-only gets 403 naming it, and nothing changes', async () => {
    const before = (await t.http.get(`/nodes/${f.nodeId}`).expect(200)).body as Record<string, unknown>;
    const declared = adminOnlyFields(UpdateNodeDto);
    expect(declared.length).toBeGreaterThan(0);
    for (const field of declared) {
      expect(CONTRACT_ADMIN_ONLY).toHaveProperty([field]);
      const update = await t.http
        .put(`/publishers/${f.publisherId}/nodes/${f.nodeId}`)
        .set(f.member.auth)
        .send({ [field]: CONTRACT_ADMIN_ONLY[field] });
      expect([field, update.status, update.body.message]).toEqual([field, 403, `only admins may change '${field}'`]);

      const create = await t.http
        .post(`/publishers/${f.publisherId}/nodes`)
        .set(f.member.auth)
        .send({ id: unique('node'), name: 'New', [field]: CONTRACT_ADMIN_ONLY[field] });
      expect([field, create.status]).toEqual([field, 403]);
    }
    // Several at once: each is named (CONTRACT §1's one message naming every problem).
    const several = await t.http.put(`/publishers/${f.publisherId}/nodes/${f.nodeId}`).set(f.member.auth).send(CONTRACT_ADMIN_ONLY).expect(403);
    expect(several.body.message).toBe(declared.map((field) => `only admins may change '${field}'`).join('; '));
    expect((await t.http.get(`/nodes/${f.nodeId}`).expect(200)).body).toEqual(before);
  });
});
