import { In } from 'typeorm';
import { NodeEntity } from '../src/nodes/entities/node.entity';
import { SearchTotalEntity } from '../src/nodes/entities/search-total.entity';
import { KEEP_SEARCH_TOTALS_FROM, KEEPS_PER_SECOND, KEPT_SEARCH_TOTALS } from '../src/nodes/nodes.repository';
import { holdCommits } from './support/commit-gate';
import { lockWaiters } from './support/postgres';
import { createPublisherWithNode, PublisherFixture } from './support/registry-fixtures';
import { waitFor } from './support/server-process';
import { TestApp, TestUser, unique } from './support/test-app';

/**
 * The totals of common searches, kept by triggers (docs/decisions.md, "A
 * common search's total is kept"): after every kind of node write, the total a search
 * answers, the kept row and the database's own count agree, and the row
 * was moved, not counted again. The pages of a common term, which SQLite
 * walks in the listing's order, are the database's own order of its matches.
 */
describe('Kept search totals', () => {
  let t: TestApp;
  let admin: TestUser;
  let f: PublisherFixture;
  /** A term in the description of KEEP_SEARCH_TOTALS_FROM nodes of f's publisher, written here in one go. */
  const term = unique('kt').replace('-', '');
  const seeded: string[] = [];

  beforeAll(async () => {
    t = await TestApp.start();
    admin = await t.createUser({ admin: true });
    f = await createPublisherWithNode(t, { description: 'Not the term' });
    const nodes = Array.from({ length: KEEP_SEARCH_TOTALS_FROM }, (_, i) => ({ ...seededNode(`${term}-seeded-${i}`), name: `Seeded ${i}`, downloads: i % 7 }));
    seeded.push(...nodes.map(({ id }) => id));
    for (let start = 0; start < nodes.length; start += 200) await t.dataSource.manager.insert(NodeEntity, nodes.slice(start, start + 200));
  });
  afterAll(async () => {
    await t?.dataSource.manager.delete(NodeEntity, { id: In(seeded) });
    await t?.close();
  });

  /** A listed node of f's publisher, written behind the service's back, whose description holds the term. */
  function seededNode(id: string) {
    const now = new Date();
    return {
      ...{ id, normalizedId: id, publisherId: f.publisherId, publisherName: 'Publisher', name: 'Seeded', description: `Adds ${term} support` },
      ...{ tags: [], tagsAdmin: [], supportedOs: [], supportedAccelerators: [], preemptedAppNodeNames: [] },
      ...{ status: 'NodeStatusActive' as const, searchRanking: 0, downloads: 0, githubStars: 0, rating: 0, createdAt: now, updatedAt: now },
    };
  }

  /** Searches a common term until its total is kept (at most KEEPS_PER_SECOND are kept a second), each answer exact. */
  async function searchedUntilKept(searched: string): Promise<void> {
    await waitFor(
      async () => {
        const { answered, kept, counted } = await totals(searched);
        expect([searched, answered]).toEqual([searched, counted]);
        return kept !== undefined;
      },
      5000,
      `'${searched}' kept`,
    );
  }

  /** Distinct parts of the seeded description, as a search is trimmed: each is in every seeded node. */
  function commonTerms(): string[] {
    const description = `Adds ${term} support`;
    const parts = [...description].flatMap((_, start) => Array.from({ length: description.length - start - 3 }, (_, extra) => description.slice(start, start + 4 + extra)));
    return [...new Set(parts.filter((part) => part.trim() === part))];
  }

  /** The listed nodes matching an ASCII term, as the database finds them, in the listing's order. */
  const matching = (searched: string) =>
    t.dataSource.manager
      .createQueryBuilder(NodeEntity, 'node')
      .where(`node.status = 'NodeStatusActive'`)
      .andWhere(`(LOWER(node.id) LIKE :like OR LOWER(node.name) LIKE :like OR LOWER(node.description) LIKE :like OR LOWER(node.author) LIKE :like)`, {
        like: `%${searched.toLowerCase()}%`,
      })
      .orderBy('node.searchRanking', 'DESC')
      .addOrderBy('node.downloads', 'DESC')
      .addOrderBy('node.id', 'ASC');

  /** The search's total as answered (a member's token: not from the read cache), kept, and counted by the database. */
  async function totals(searched: string) {
    const answered = (await t.http.get(`/nodes?search=${encodeURIComponent(searched)}&limit=1`).set(f.member.auth).expect(200)).body.total as number;
    const kept = await t.dataSource.manager.findOneBy(SearchTotalEntity, { term: searched });
    return { answered, kept: kept?.matches, keptAt: kept?.keptAt.getTime(), counted: await matching(searched).getCount() };
  }

  it('keeps a common term’s total and moves it with every write that makes a node match or stop matching', async () => {
    const first = await totals(term);
    expect(first).toMatchObject({ answered: KEEP_SEARCH_TOTALS_FROM, kept: KEEP_SEARCH_TOTALS_FROM, counted: KEEP_SEARCH_TOTALS_FROM });
    const node = `/publishers/${f.publisherId}/nodes/${f.nodeId}`;
    const expectTotal = async (matches: number) =>
      expect(await totals(term)).toEqual({ answered: matches, kept: matches, keptAt: first.keptAt, counted: matches });

    await t.http.put(node).set(f.owner.auth).send({ description: `Now with ${term.toUpperCase()}` }).expect(200);
    await expectTotal(KEEP_SEARCH_TOTALS_FROM + 1);
    await t.http.put(node).set(f.owner.auth).send({ name: `Named ${term}` }).expect(200);
    await expectTotal(KEEP_SEARCH_TOTALS_FROM + 1);
    await t.http.put(node).set(f.owner.auth).send({ description: 'Not any more' }).expect(200);
    await expectTotal(KEEP_SEARCH_TOTALS_FROM + 1);
    await t.http.put(node).set(f.owner.auth).send({ name: 'Plain' }).expect(200);
    await expectTotal(KEEP_SEARCH_TOTALS_FROM);
    await t.http.put(node).set(f.owner.auth).send({ author: `by ${term}` }).expect(200);
    await expectTotal(KEEP_SEARCH_TOTALS_FROM + 1);
    await t.http.put(node).set(admin.auth).send({ status: 'NodeStatusBanned' }).expect(200);
    await expectTotal(KEEP_SEARCH_TOTALS_FROM);
    await t.http.put(node).set(admin.auth).send({ status: 'NodeStatusActive' }).expect(200);
    await expectTotal(KEEP_SEARCH_TOTALS_FROM + 1);

    const created = unique(`${term}-new`);
    await t.http.post(`/publishers/${f.publisherId}/nodes`).set(f.owner.auth).send({ id: created, name: 'Created' }).expect(201);
    await expectTotal(KEEP_SEARCH_TOTALS_FROM + 2);
    await t.http.delete(`/publishers/${f.publisherId}/nodes/${created}`).set(f.owner.auth).expect(204);
    await expectTotal(KEEP_SEARCH_TOTALS_FROM + 1);
    await t.http.put(node).set(f.owner.auth).send({ author: null }).expect(200);
    await expectTotal(KEEP_SEARCH_TOTALS_FROM);
    // U+212A KELVIN SIGN folds to the term's k, on both databases, as the search folds it.
    await t.http.put(node).set(f.owner.auth).send({ name: term.replace('k', '\u212A') }).expect(200);
    await expectTotal(KEEP_SEARCH_TOTALS_FROM + 1);
    await t.http.put(node).set(f.owner.auth).send({ name: 'Plain' }).expect(200);

    // Rows written in one statement, and deleted in one (PostgreSQL counts them per statement).
    const more = ['a', 'b', 'c'].map((suffix) => ({ ...seededNode(`${term}-more-${suffix}`), name: 'More' }));
    await t.dataSource.manager.insert(NodeEntity, more);
    await expectTotal(KEEP_SEARCH_TOTALS_FROM + 3);
    await t.dataSource.manager.delete(NodeEntity, { id: In(more.map(({ id }) => id)) });
    await expectTotal(KEEP_SEARCH_TOTALS_FROM);

    // A publisher's ban: every node of it at once.
    const banned = await createPublisherWithNode(t, { description: `Also ${term}` });
    await t.http.post(`/publishers/${banned.publisherId}/nodes`).set(banned.owner.auth).send({ id: unique(term), name: 'Second' }).expect(201);
    await expectTotal(KEEP_SEARCH_TOTALS_FROM + 2);
    await t.http.post(`/publishers/${banned.publisherId}/ban`).set(admin.auth).expect(204);
    await expectTotal(KEEP_SEARCH_TOTALS_FROM);
  });

  it('counts a term found in fewer nodes on each search, keeping nothing', async () => {
    const rare = term.slice(0, 2) + f.nodeId.slice(-6);
    await t.http.put(`/publishers/${f.publisherId}/nodes/${f.nodeId}`).set(f.owner.auth).send({ description: `Has ${rare}` }).expect(200);
    expect(await totals(rare)).toEqual({ answered: 1, kept: undefined, keptAt: undefined, counted: 1 });
  });

  it('keeps at most KEPT_SEARCH_TOTALS, dropping the oldest first; a dropped term is counted again', async () => {
    // Term was kept first, by the first test.
    const searched = [term, ...commonTerms().filter((part) => part !== term)].slice(0, KEPT_SEARCH_TOTALS + 1);
    expect(searched).toHaveLength(KEPT_SEARCH_TOTALS + 1);
    for (const each of searched) {
      await searchedUntilKept(each);
      // kept_at has a millisecond's resolution: one a millisecond at most, in order.
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const kept = await t.dataSource.manager.find(SearchTotalEntity, { where: { term: In(searched) } });
    expect(kept.map((row) => row.term).sort()).toEqual(searched.slice(1).sort());
    await searchedUntilKept(term);
    expect(await totals(term)).toMatchObject({ answered: KEEP_SEARCH_TOTALS_FROM, kept: KEEP_SEARCH_TOTALS_FROM });
  });

  it('keeps at most KEEPS_PER_SECOND totals a second: a miss beyond answers its count', async () => {
    const distinct = commonTerms().slice(0, KEEPS_PER_SECOND + 5);
    await t.dataSource.manager.clear(SearchTotalEntity);
    // A second no search has kept a total in yet.
    const second = Math.floor(Date.now() / 1000) * 1000 + 5500;
    const clock = jest.spyOn(Date, 'now').mockReturnValue(second);
    try {
      for (const each of distinct) {
        const { answered, counted } = await totals(each);
        expect([each, answered]).toEqual([each, counted]);
      }
    } finally {
      clock.mockRestore();
    }
    expect(await t.dataSource.manager.count(SearchTotalEntity)).toBe(KEEPS_PER_SECOND);
  });

  it('pages a common term as the database orders its matches, forward and from the end', async () => {
    const reference = (await matching(term).getMany()).map(({ id }) => id);
    expect(reference).toHaveLength(KEEP_SEARCH_TOTALS_FROM);
    for (const page of [1, 2, 5, 9, 10]) {
      const res = await t.http.get(`/nodes?search=${term}&limit=100&page=${page}`).set(f.member.auth).expect(200);
      expect((res.body.nodes as { id: string }[]).map(({ id }) => id)).toEqual(reference.slice((page - 1) * 100, page * 100));
    }
  });

  const onPostgres = process.env.TEST_DATABASE_URL ? it : it.skip;
  onPostgres('a total counted while a write that moves it waits at its commit counts that write', async () => {
    const counted = unique('kc').replace('-', '');
    await t.dataSource.manager.update(NodeEntity, { id: In(seeded) }, { author: `by ${counted}` });
    const created = `${counted}-late`;
    const gate = await holdCommits(t.dataSource, 'nodes', `NEW."id" = '${created}'`, 'INSERT');
    try {
      const insert = t.http.post(`/publishers/${f.publisherId}/nodes`).set(f.owner.auth).send({ id: created, name: 'Late' }).then((res) => res);
      await gate.reached();
      // The search counts the seeded nodes, then waits to keep its total: for the held insert, which counts it.
      const search = t.http.get(`/nodes?search=${counted}&limit=1`).set(f.member.auth).then((res) => res);
      await lockWaiters(t.dataSource, 2);
      await gate.release();
      expect((await insert).status).toBe(201);
      expect((await search).body.total).toBe(KEEP_SEARCH_TOTALS_FROM + 1);
    } finally {
      await gate.release();
    }
    expect(await totals(counted)).toMatchObject({ answered: KEEP_SEARCH_TOTALS_FROM + 1, kept: KEEP_SEARCH_TOTALS_FROM + 1, counted: KEEP_SEARCH_TOTALS_FROM + 1 });
    await t.http.delete(`/publishers/${f.publisherId}/nodes/${created}`).set(f.owner.auth).expect(204);
  });

  onPostgres('a write that moves a total being kept waits for it, then moves the kept total', async () => {
    const counted = unique('kw').replace('-', '');
    await t.dataSource.manager.update(NodeEntity, { id: In(seeded) }, { author: `by ${counted}` });
    const gate = await holdCommits(t.dataSource, 'search_totals', `NEW."term" = '${counted}'`, 'INSERT');
    const created = `${counted}-late`;
    try {
      const search = t.http.get(`/nodes?search=${counted}&limit=1`).set(f.member.auth).then((res) => res);
      await gate.reached();
      // The total is counted (without the node created next) and waits at its commit, holding the kept totals' lock.
      const insert = t.http.post(`/publishers/${f.publisherId}/nodes`).set(f.owner.auth).send({ id: created, name: 'Late' }).then((res) => res);
      await lockWaiters(t.dataSource, 2);
      await gate.release();
      expect((await search).body.total).toBe(KEEP_SEARCH_TOTALS_FROM);
      expect((await insert).status).toBe(201);
    } finally {
      await gate.release();
    }
    expect(await totals(counted)).toMatchObject({ answered: KEEP_SEARCH_TOTALS_FROM + 1, kept: KEEP_SEARCH_TOTALS_FROM + 1, counted: KEEP_SEARCH_TOTALS_FROM + 1 });
    await t.http.delete(`/publishers/${f.publisherId}/nodes/${created}`).set(f.owner.auth).expect(204);
  });
});
