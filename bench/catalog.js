// The benchmark's catalog section (`npm run bench [-- --smoke] [-- --only catalog]`): catalog reads at two
// catalog sizes (1,000 and 50,000 nodes; 200 and 1,000 with --smoke), on SQLite and, when BENCH_DATABASE_URL is
// set, on PostgreSQL (a fresh sibling database per size, dropped afterwards).
//
// Each size gets a fresh database whose schema the built service's own migrations create (it is started once and
// stopped), then rows are bulk-inserted into the service's tables with the drivers (better-sqlite3 in one
// transaction; pg with INSERT ... SELECT FROM unnest(...) in batches), in the formats the service writes. The
// service is started again on it and read one request at a time over a keep-alive connection: p50/p99 of the
// first, last and middle page of 100, a common and a rare search, a node, its /install, a conditional GET, a page of
// 1,000, a full crawl in pages of 1,000 and an incremental sync (?timestamp=) after TOUCHED nodes are updated
// through the API. Then each figure's growth (large ÷ small catalog) and the targets of CONTRACT §6/§7 and the
// catalog issue, reported as met or not: a missed target does not fail the run, a failed request does.
const { execFileSync } = require('node:child_process');
const { createHash, randomUUID } = require('node:crypto');
const { mkdirSync, mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const { Agent, request } = require('node:http');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const Database = require('better-sqlite3');
const { zipSync } = require('fflate');
const { Client } = require('pg');
const { cli, commitOf, percentile, round, startService, stopService, wait } = require('./lib');

const PAGE = 100;
const BIG_PAGE = 1000;
/** In the description (or the name) of one node in COMMON_EVERY. */
const COMMON_TERM = 'upscale';
const COMMON_EVERY = 10;
/** In exactly RARE_COUNT nodes at every size: one id, one description, one author. */
const RARE_TERM = 'quokka';
const RARE_COUNT = 3;
/** Nodes updated through the API before the incremental sync. */
const TOUCHED = 20;
/** Distinct nodes the single-node reads cycle through. */
const SAMPLE_NODES = 100;
const PUBLISHER = 'bench-catalog';
/** Where seeded downloadUrls point; the bench downloads through the service by the URL's path. */
const SEED_BASE_URL = 'https://registry.bench.invalid';

// Targets (the catalog issue; CONTRACT §7).
const MAX_GROWTH = 1.5;
const PAGE_IN_SINGLE_GETS = 6;
const LAST_OVER_FIRST = 1.5;
const BIG_PAGE_IN_SINGLE_GETS = 25;

const WORDS = (
  'latent image mask sampler lora control video audio prompt seed noise style face pose depth edge ' +
  'segment tile batch grid color light shadow detail sharp blur crop resize rotate flip blend merge ' +
  'split layer node graph flow loop switch router cache memory model checkpoint vae clip text token ' +
  'embed vector cluster anime photo portrait landscape studio cinema motion frame interpolate animate ' +
  'render preview save load export import convert format utility toolkit suite pack essentials extra ' +
  'advanced simple quick smart auto magic pixel voxel mesh point cloud normal map bake refine restore ' +
  'repair denoise enhance boost scale inpaint outpaint region area prompt wildcard dynamic random schedule ' +
  'step guidance attention cross self adapter ipadapter instant identity garment fashion product logo ' +
  'comic manga sketch lineart canny scribble openpose zoe midas marigold sam florence caption tagger'
).split(' ');
const FIRST_NAMES = 'ada alan bea carl dora emil fay gus hana ivan jo kai lena milo nora omar pia raj sara tomo uma vic wen yuki zed'.split(' ');
const LAST_NAMES = 'abe baker chen diaz evans fujita garcia hall ito jones kim lopez mori nakamura ortiz park qian rossi sato tanaka ueda vogel wang xu young zhou'.split(' ');
const TAGS = ['image', 'video', 'audio', 'utility', 'sampling', 'conditioning', 'masking', 'upscaling', '3d', 'workflow'];
const LICENSES = ['MIT', 'Apache-2.0', 'GPL-3.0', 'AGPL-3.0', 'BSD-3-Clause', null];
const DEPENDENCIES = ['numpy', 'torch>=2.1', 'opencv-python', 'pillow', 'transformers>=4.40', 'onnxruntime', 'scipy', 'einops'];

for (const word of [...WORDS, ...FIRST_NAMES, ...LAST_NAMES]) {
  if (word.includes(COMMON_TERM) || word.includes(RARE_TERM)) throw new Error(`word list: '${word}' contains a search term`);
}

/** A small deterministic PRNG (mulberry32), so every run seeds the same catalog. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const capitalize = (word) => word[0].toUpperCase() + word.slice(1);
const json = (value) => JSON.stringify(value);

/** SQLite datetime as TypeORM stores it: 'YYYY-MM-DD HH:MM:SS.SSS', UTC. */
const sqliteDate = (date) => date.toISOString().replace('T', ' ').replace('Z', '');

/**
 * N nodes with 1–3 versions each (the highest active, with the archive), as column → value rows in the
 * service's column names. Dates are Date and booleans boolean here; each driver's writer converts them.
 */
function buildCatalog(n, { sha256, userId }) {
  const random = prng(20261126);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const words = (count) => Array.from({ length: count }, () => pick(WORDS));
  const rare = new Map(Array.from({ length: RARE_COUNT }, (_, k) => [Math.floor((n * (2 * k + 1)) / (2 * RARE_COUNT)), k]));
  const now = Date.now();
  const yearMs = 365 * 24 * 3600 * 1000;
  const user = { id: userId, email: 'catalog-bench@example.com', name: 'Catalog Bench', is_admin: false, credits: 0, created_at: new Date(now - 2 * yearMs) };
  const publisher = {
    id: PUBLISHER,
    name: 'Catalog Bench',
    description: 'Nodes seeded by bench/catalog.js',
    website: 'https://example.com',
    support: null,
    source_code_repo: 'https://github.com/example/catalog-bench',
    logo: null,
    created_at: user.created_at,
  };
  const member = { id: randomUUID(), publisher_id: PUBLISHER, user_id: userId, role: 'owner', created_at: user.created_at };
  const nodes = [];
  const versions = [];
  const expected = { active: 0, common: 0, rare: 0 };
  for (let i = 0; i < n; i += 1) {
    const rareSlot = rare.get(i);
    const common = i % COMMON_EVERY === 3;
    // 2% deleted, 1% banned (never a node holding a search term, so the expected counts stay exact).
    const status = rareSlot === undefined && !common && i % 50 === 7 ? 'NodeStatusDeleted' : rareSlot === undefined && !common && i % 100 === 11 ? 'NodeStatusBanned' : 'NodeStatusActive';
    const [w1, w2] = words(2);
    const id = `${rareSlot === 0 ? `${RARE_TERM}-` : ''}${i % 3 === 0 ? `ComfyUI-${capitalize(w1)}${capitalize(w2)}` : `${w1}-${w2}`}-${i}`;
    const nameWords = words(2 + Math.floor(random() * 3)).map(capitalize);
    if (common && i % (3 * COMMON_EVERY) === 3) nameWords.splice(1, 0, capitalize(COMMON_TERM));
    const descriptionWords = words(12 + Math.floor(random() * 28));
    if (common && i % (3 * COMMON_EVERY) !== 3) descriptionWords.splice(Math.floor(random() * descriptionWords.length), 0, COMMON_TERM);
    if (rareSlot === 1) descriptionWords.splice(3, 0, RARE_TERM);
    const author = rareSlot === 2 ? `${capitalize(RARE_TERM)} Labs` : `${capitalize(pick(FIRST_NAMES))} ${capitalize(pick(LAST_NAMES))}`;
    const handle = author.toLowerCase().replace(/ /g, '');
    const createdAt = new Date(now - yearMs - Math.floor(random() * yearMs));
    const updatedAt = new Date(createdAt.getTime() + Math.floor(random() * 30 * 24 * 3600 * 1000));
    const supportedOs = random() < 0.3 ? json(['linux', 'windows', 'macos']) : '[]';
    const accelerators = random() < 0.2 ? json(['cuda']) : '[]';
    const tagCount = Math.floor(random() * 4);
    const versionCount = 1 + (i % 3);
    let latestId;
    for (let v = 0; v < versionCount; v += 1) {
      const latest = v === versionCount - 1;
      const versionId = randomUUID();
      if (latest) latestId = versionId;
      versions.push({
        id: versionId,
        node_id: id,
        version: `1.${v}.${i % 7}`,
        changelog: `${capitalize(words(1)[0])} ${words(6).join(' ')}.`,
        dependencies: json(DEPENDENCIES.slice(i % 5, (i % 5) + (i % 4))),
        deprecated: false,
        // The active version to install carries the archive; older ones were published without one.
        download_url: latest ? `${SEED_BASE_URL}/archives/${sha256}.zip` : null,
        archive_sha256: latest ? sha256 : null,
        status: 'NodeVersionStatusActive',
        status_reason: null,
        app_node_extract_status: null,
        supported_os: supportedOs,
        supported_accelerators: accelerators,
        supported_app_version: i % 4 === 0 ? '>=0.3.0' : null,
        supported_app_frontend_version: null,
        tags: '[]',
        tags_admin: '[]',
        created_at: new Date(createdAt.getTime() + v * 3600 * 1000),
      });
    }
    nodes.push({
      id,
      normalized_id: id.toLowerCase(),
      publisher_id: PUBLISHER,
      name: nameWords.join(' '),
      description: `${capitalize(descriptionWords.join(' '))}.`,
      author,
      category: null,
      license: LICENSES[i % LICENSES.length],
      icon: i % 5 === 0 ? `https://raw.githubusercontent.com/${handle}/${id}/main/icon.png` : null,
      banner_url: null,
      repository: `https://github.com/${handle}/${id}`,
      tags: json(TAGS.slice(i % TAGS.length, (i % TAGS.length) + tagCount)),
      tags_admin: '[]',
      supported_os: supportedOs,
      supported_accelerators: accelerators,
      supported_app_version: i % 4 === 0 ? '>=0.3.0' : null,
      supported_app_frontend_version: null,
      preempted_app_node_names: '[]',
      translations: null,
      status,
      status_detail: null,
      search_ranking: random() < 0.7 ? Math.floor(random() * 3) : Math.floor(random() * 11),
      downloads: Math.floor(250000 * random() ** 6),
      github_stars: Math.floor(5000 * random() ** 4),
      rating: Math.round(random() * 50) / 10,
      latest_version_id: latestId,
      created_at: createdAt,
      updated_at: updatedAt,
    });
    if (status === 'NodeStatusActive') {
      expected.active += 1;
      if (common) expected.common += 1;
      if (rareSlot !== undefined) expected.rare += 1;
    }
  }
  return { user, publisher, member, nodes, versions, expected };
}

/** Column lists with their PostgreSQL array types (for unnest). */
const COLUMNS = {
  users: { id: 'text', email: 'text', name: 'text', is_admin: 'boolean', credits: 'integer', created_at: 'timestamptz' },
  publishers: {
    id: 'text',
    name: 'text',
    description: 'text',
    website: 'text',
    support: 'text',
    source_code_repo: 'text',
    logo: 'text',
    created_at: 'timestamptz',
  },
  publisher_members: { id: 'text', publisher_id: 'text', user_id: 'text', role: 'text', created_at: 'timestamptz' },
  nodes: {
    id: 'text',
    normalized_id: 'text',
    publisher_id: 'text',
    name: 'text',
    description: 'text',
    author: 'text',
    category: 'text',
    license: 'text',
    icon: 'text',
    banner_url: 'text',
    repository: 'text',
    tags: 'text',
    tags_admin: 'text',
    supported_os: 'text',
    supported_accelerators: 'text',
    supported_app_version: 'text',
    supported_app_frontend_version: 'text',
    preempted_app_node_names: 'text',
    translations: 'text',
    status: 'text',
    status_detail: 'text',
    search_ranking: 'integer',
    downloads: 'integer',
    github_stars: 'integer',
    rating: 'double precision',
    latest_version_id: 'text',
    created_at: 'timestamptz',
    updated_at: 'timestamptz',
  },
  node_versions: {
    id: 'text',
    node_id: 'text',
    version: 'text',
    changelog: 'text',
    dependencies: 'text',
    deprecated: 'boolean',
    download_url: 'text',
    archive_sha256: 'text',
    status: 'text',
    status_reason: 'text',
    app_node_extract_status: 'text',
    supported_os: 'text',
    supported_accelerators: 'text',
    supported_app_version: 'text',
    supported_app_frontend_version: 'text',
    tags: 'text',
    tags_admin: 'text',
    created_at: 'timestamptz',
  },
};
/** Parents first, so every foreign key holds as rows go in. */
const TABLE_ORDER = ['users', 'publishers', 'publisher_members', 'nodes', 'node_versions'];

function tableRows(catalog) {
  return { users: [catalog.user], publishers: [catalog.publisher], publisher_members: [catalog.member], nodes: catalog.nodes, node_versions: catalog.versions };
}

/** One transaction, one prepared INSERT per table, values as TypeORM writes them on SQLite. */
function seedSqlite(path, catalog) {
  const db = new Database(path);
  try {
    db.pragma('foreign_keys = ON');
    const rows = tableRows(catalog);
    const toSqlite = (value) => (value instanceof Date ? sqliteDate(value) : typeof value === 'boolean' ? (value ? 1 : 0) : value);
    db.transaction(() => {
      for (const table of TABLE_ORDER) {
        const columns = Object.keys(COLUMNS[table]);
        const insert = db.prepare(`INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
        for (const row of rows[table]) insert.run(columns.map((column) => toSqlite(row[column])));
      }
    })();
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}

/**
 * INSERT ... SELECT FROM unnest(...) in batches, one transaction; then VACUUM ANALYZE, as autovacuum does soon after
 * a bulk load (inserts trigger it since PostgreSQL 13): statistics, and the visibility map index-only scans need.
 */
async function seedPostgres(databaseUrl, catalog) {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    const rows = tableRows(catalog);
    for (const table of TABLE_ORDER) {
      const columns = Object.entries(COLUMNS[table]);
      const sql =
        `INSERT INTO "${table}" (${columns.map(([c]) => `"${c}"`).join(', ')}) ` +
        `SELECT * FROM unnest(${columns.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ')})`;
      for (let start = 0; start < rows[table].length; start += 5000) {
        const batch = rows[table].slice(start, start + 5000);
        await client.query(
          sql,
          columns.map(([column]) => batch.map((row) => (row[column] instanceof Date ? row[column].toISOString() : row[column]))),
        );
      }
    }
    await client.query('COMMIT');
    await client.query('VACUUM ANALYZE');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    await client.end();
  }
}

/** Triggers and full-text/trigram structures the migrations created: what bulk INSERTs must keep in step. */
async function describeSchema(database) {
  if (database.kind === 'sqlite') {
    const db = new Database(database.path, { readonly: true });
    try {
      const triggers = db.prepare(`SELECT name, tbl_name AS "table" FROM sqlite_master WHERE type = 'trigger' ORDER BY name`).all();
      const searchStructures = db
        .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%' ORDER BY name`)
        .all()
        .map((row) => row.name);
      return { triggers, searchStructures };
    } finally {
      db.close();
    }
  }
  const client = new Client({ connectionString: database.url });
  await client.connect();
  try {
    const triggers = (
      await client.query(`SELECT tgname AS name, tgrelid::regclass::text AS "table" FROM pg_trigger WHERE NOT tgisinternal ORDER BY tgname`)
    ).rows;
    const searchStructures = (
      await client.query(`SELECT indexname AS name FROM pg_indexes WHERE schemaname = 'public' AND indexdef ~* '(gin|gist)' ORDER BY indexname`)
    ).rows.map((row) => row.name);
    return { triggers, searchStructures };
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------------------------------------- HTTP, one at a time

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** One GET over the keep-alive connection; the body as received (not decompressed) and the time to its last byte. */
function get(url, headers = {}) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = request(url, { agent, headers }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks), ms: Number(process.hrtime.bigint() - started) / 1e6 }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function send(method, url, headers, body) {
  const response = await fetch(url, { method, headers, body });
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

function expectStatus(reply, url, allowed) {
  if (!allowed.includes(reply.status)) {
    throw new Error(`GET ${url}: ${reply.status} (expected ${allowed.join(' or ')}) ${reply.body.toString().slice(0, 300)}`);
  }
  return reply;
}

async function getJson(url, headers) {
  const reply = expectStatus(await get(url, headers), url, [200]);
  return { ...reply, json: JSON.parse(reply.body.toString()) };
}

/**
 * `path(i)` requested one at a time: `count` requests or `budgetMs`, whichever ends first (at least
 * `min`), after `warmUp` unmeasured ones. Any status outside `allowed` throws: a broken route fails the bench.
 */
async function measure(baseUrl, path, plan, { headers = {}, allowed = [200], before = async () => {} } = {}) {
  for (let i = 0; i < plan.warmUp; i += 1) expectStatus(await get(`${baseUrl}${path(i)}`, headers), `${baseUrl}${path(i)}`, allowed);
  const samples = [];
  const statuses = {};
  let bytes;
  const started = Date.now();
  for (let i = 0; i < plan.count && (i < plan.min || Date.now() - started < plan.budgetMs); i += 1) {
    await before();
    const url = `${baseUrl}${path(i)}`;
    const reply = expectStatus(await get(url, headers), url, allowed);
    samples.push(reply.ms);
    statuses[reply.status] = (statuses[reply.status] ?? 0) + 1;
    bytes = reply.body.length;
  }
  return { path: path(0), ...summary(samples), bytes, statuses };
}

/**
 * Several URLs requested in turn, one request at a time, for figures a target compares as a ratio (a page and a
 * single GET; one route at two catalog sizes): both come from the same minutes. Measured one after the other, such
 * figures moved apart by up to three times between runs on this machine (PostgreSQL's single GET at 50,000 nodes
 * took 2.45 ms in one run and 0.74 ms in another, while the pages it is compared with moved by a third), and their
 * ratio with them.
 */
async function measureAlternating(urls, plan) {
  for (let i = 0; i < plan.warmUp; i += 1) for (const url of urls) expectStatus(await get(url(i)), url(i), [200]);
  const samples = urls.map(() => []);
  const started = Date.now();
  for (let i = 0; i < plan.count && (i < plan.min || Date.now() - started < plan.budgetMs * urls.length); i += 1) {
    for (const [k, url] of urls.entries()) samples[k].push(expectStatus(await get(url(i)), url(i), [200]).ms);
  }
  return samples.map((urlSamples, k) => {
    const { pathname, search } = new URL(urls[k](0));
    return { path: pathname + search, ...summary(urlSamples) };
  });
}

/** How many samples, and their p50, p99 and mean. */
function summary(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    requests: sorted.length,
    p50Ms: round(percentile(sorted, 0.5)),
    p99Ms: round(percentile(sorted, 0.99)),
    meanMs: round(sorted.reduce((sum, ms) => sum + ms, 0) / sorted.length),
  };
}

/** Raw and compressed sizes of one reply (Accept-Encoding absent, then `gzip, br`). */
async function replySizes(url) {
  const raw = expectStatus(await get(url), url, [200]);
  const compressed = expectStatus(await get(url, { 'Accept-Encoding': 'gzip, br' }), url, [200]);
  return { rawBytes: raw.body.length, compressedBytes: compressed.body.length, contentEncoding: compressed.headers['content-encoding'] ?? null };
}

// ----------------------------------------------------------------------------------------------------- one catalog

async function benchCatalog(database, n, plan, archive) {
  const userId = randomUUID();
  const catalog = buildCatalog(n, { sha256: archive.sha256, userId });

  // The schema, from the service's own migrations.
  const schemaStarted = Date.now();
  await stopService(await startService(database.url, undefined, { STORAGE_DIR: archive.dir }));
  const schemaMs = Date.now() - schemaStarted;
  const schema = await describeSchema(database);

  const seedStarted = process.hrtime.bigint();
  if (database.kind === 'sqlite') seedSqlite(database.path, catalog);
  else await seedPostgres(database.url, catalog);
  const seedMs = Math.round(Number(process.hrtime.bigint() - seedStarted) / 1e6);
  const seed = { nodes: n, versions: catalog.versions.length, activeNodes: catalog.expected.active, schemaMs, seedMs };
  console.log(`catalog: ${database.kind} ${n} nodes: schema by the service's migrations in ${schemaMs} ms, ${n} nodes + ${catalog.versions.length} versions inserted in ${seedMs} ms`);
  await settleWrites(database);

  const { token } = cli(database.url, 'token', 'create', '--user', userId);
  const service = await startService(database.url, undefined, { STORAGE_DIR: archive.dir });
  try {
    const base = service.url;
    const checks = {};
    const active = catalog.nodes.filter((node) => node.status === 'NodeStatusActive');
    const step = Math.max(1, Math.floor(active.length / SAMPLE_NODES));
    const sample = Array.from({ length: Math.min(SAMPLE_NODES, active.length) }, (_, k) => active[k * step].id);
    // Its own node for the conditional GET: installs change a node's downloads, and so its ETag.
    const conditionalId = active[Math.floor(step / 2)].id;

    const first = await getJson(`${base}/nodes?page=1&limit=${PAGE}`);
    const { total } = first.json;
    // The last full page: the catalog's very last page is short (70 nodes of 970 at 1,000, 100 of 48,500 at
    // 50,000), and comparing 70 nodes' page with 100 nodes' made the deepest page seem to grow with the catalog.
    const lastPage = Math.max(1, Math.floor(total / PAGE));
    // Paths by route, for the figures measured alone and again in turn (see measureAlternating, measureGrowthInTurn).
    const paths = {
      firstPage: () => `/nodes?page=1&limit=${PAGE}`,
      lastPage: () => `/nodes?page=${lastPage}&limit=${PAGE}`,
      searchCommon: () => `/nodes?search=${COMMON_TERM}&limit=${PAGE}`,
      searchRare: () => `/nodes?search=${RARE_TERM}&limit=${PAGE}`,
      node: (i) => `/nodes/${sample[i % sample.length]}`,
      page1000: () => `/nodes?page=1&limit=${BIG_PAGE}`,
    };
    const common = await getJson(`${base}${paths.searchCommon()}`);
    const rare = await getJson(`${base}${paths.searchRare()}`);
    checks.totals = {
      listed: total,
      expectedListed: catalog.expected.active,
      common: common.json.total,
      expectedCommon: catalog.expected.common,
      rare: rare.json.total,
      expectedRare: catalog.expected.rare,
    };

    const routes = {};
    routes.firstPage = await measure(base, paths.firstPage, plan);
    routes.lastPage = await measure(base, paths.lastPage, plan);
    // Pages past the middle may be walked from the end of the catalog: the middle page is then the deepest walk.
    routes.middlePage = await measure(base, () => `/nodes?page=${Math.ceil(lastPage / 2)}&limit=${PAGE}`, plan);
    routes.searchCommon = await measure(base, paths.searchCommon, plan);
    // The same search with its matches read every time: the search generation raised before each request, as a
    // change to a searched field would (unmeasured), so the matches the service keeps per generation are never reused.
    const generation = await searchGenerationRaiser(database);
    try {
      routes.searchCommonRecounted = await measure(base, paths.searchCommon, plan, { before: generation.raise });
    } finally {
      await generation.close();
    }
    routes.searchRare = await measure(base, paths.searchRare, plan);
    routes.node = await measure(base, paths.node, plan);
    routes.page1000 = await measure(base, paths.page1000, plan);
    routes.page1000Compressed = await measure(base, paths.page1000, plan, { headers: { 'Accept-Encoding': 'gzip, br' } });
    // What the targets that compare a page with a single GET or with the first page take: the four in turn (see measureAlternating).
    const [alternatingPage, alternatingLastPage, alternatingNode, alternatingPage1000] = await measureAlternating(
      [paths.firstPage, paths.lastPage, paths.node, paths.page1000].map((path) => (i) => `${base}${path(i)}`),
      plan,
    );
    const costs = { firstPage: alternatingPage, lastPage: alternatingLastPage, node: alternatingNode, page1000: alternatingPage1000 };

    // Conditional GET: If-None-Match with the ETag of a first GET.
    const nodeReply = await getJson(`${base}/nodes/${conditionalId}`);
    const etag = nodeReply.headers.etag ?? null;
    if (etag) {
      routes.conditional = await measure(base, () => `/nodes/${conditionalId}`, plan, { headers: { 'If-None-Match': etag }, allowed: [200, 304] });
    }
    const conditional = etag
      ? { etag, answered304: routes.conditional.statuses[304] ?? 0, requests: routes.conditional.requests }
      : { etag: null, note: 'no ETag: GET /nodes/{id} sends none', answered304: 0, requests: 0 };
    const firstPageEtag = first.headers.etag ?? null;
    const listConditional = firstPageEtag ? (await get(`${base}/nodes?page=1&limit=${PAGE}`, { 'If-None-Match': firstPageEtag })).status : null;

    // A full crawl in pages of 1,000, as older package managers fetch the catalog. Its figure is the service's:
    // each page's time to its last byte, as every other figure here; the client's parsing of 1.4 MB a page (about
    // 6 ms, a third of a page's own time) is in `clientMs`, the whole crawl as this client saw it.
    const crawlStarted = process.hrtime.bigint();
    const seen = new Set();
    let pages = 0;
    let fetched = 0;
    let serviceMs = 0;
    for (let page = 1; ; page += 1) {
      const reply = await getJson(`${base}/nodes?page=${page}&limit=${BIG_PAGE}`);
      serviceMs += reply.ms;
      pages += 1;
      fetched += reply.json.nodes.length;
      for (const node of reply.json.nodes) seen.add(node.id);
      if (page >= reply.json.totalPages || reply.json.nodes.length === 0) break;
    }
    const clientMs = round(Number(process.hrtime.bigint() - crawlStarted) / 1e6, 1);
    const crawl = { ms: round(serviceMs, 1), clientMs, pages, nodes: fetched, distinctNodes: seen.size, listed: total };
    crawl.msPerPage = round(crawl.ms / pages);
    // Per 1,000 nodes, so a small catalog's short last page compares fairly.
    crawl.msPer1000Nodes = round((crawl.ms / Math.max(1, fetched)) * 1000);

    // Installs (they count downloads, which reorder the listing: after the crawl), and one archive download.
    routes.install = await measure(base, (i) => `/nodes/${sample[i % sample.length]}/install`, plan);
    const install = await getJson(`${base}/nodes/${sample[0]}/install`);
    const archivePath = new URL(install.json.downloadUrl).pathname;
    const download = expectStatus(await get(`${base}${archivePath}`), `${base}${archivePath}`, [200]);
    if (!download.body.equals(archive.bytes)) throw new Error(`GET ${archivePath}: not the archive's bytes`);

    const headers = {
      listCacheControl: first.headers['cache-control'] ?? null,
      listEtag: firstPageEtag,
      listIfNoneMatchStatus: listConditional,
      nodeCacheControl: nodeReply.headers['cache-control'] ?? null,
      nodeEtag: etag,
      installCacheControl: install.headers['cache-control'] ?? null,
    };
    const sizes = {
      page100: await replySizes(`${base}/nodes?page=1&limit=${PAGE}`),
      page1000: await replySizes(`${base}/nodes?page=1&limit=${BIG_PAGE}`),
      node: await replySizes(`${base}/nodes/${sample[0]}`),
    };

    // Incremental sync: TOUCHED nodes updated through the API after T, then one request for what changed.
    const since = new Date(Date.now() - 1).toISOString();
    await wait(5);
    const auth = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
    const touched = active.filter((_, k) => k % Math.max(1, Math.floor(active.length / TOUCHED)) === 1).slice(0, TOUCHED);
    for (const node of touched) {
      await send('PUT', `${base}/publishers/${PUBLISHER}/nodes/${node.id}`, auth, JSON.stringify({ description: `${node.description} (edited)` }));
    }
    const syncPath = `/nodes?timestamp=${encodeURIComponent(since)}&limit=${BIG_PAGE}`;
    const syncReply = await getJson(`${base}${syncPath}`);
    routes.sync = await measure(base, () => syncPath, plan);
    const sync = { touched: touched.length, returned: syncReply.json.total, p50Ms: routes.sync.p50Ms };

    const run = { n, seed, schema, coldStartMs: service.coldStartMs, routes, costs, checks, conditional, headers, sizes, crawl, sync };
    return { run, paths: { ...paths, sync: () => syncPath } };
  } finally {
    await stopService(service);
  }
}

// --------------------------------------------------------------------------------------------------- the databases

/** Fresh databases, one per catalog size: SQLite files, or PostgreSQL databases beside BENCH_DATABASE_URL's. */
function databases(dir) {
  const list = [
    {
      kind: 'sqlite',
      async create(n) {
        const path = join(dir, `catalog-${n}.db`);
        return { kind: 'sqlite', path, url: `sqlite:${path}`, drop: async () => {} };
      },
    },
  ];
  const pgUrl = process.env.BENCH_DATABASE_URL;
  if (pgUrl) {
    list.push({
      kind: 'postgres',
      async create(n) {
        const url = new URL(pgUrl);
        const name = `${url.pathname.slice(1).replace(/[^a-z0-9_]/gi, '_').toLowerCase() || 'bench'}_catalog_${n}`.slice(0, 63);
        const admin = async (sql) => {
          const client = new Client({ connectionString: pgUrl });
          await client.connect();
          try {
            await client.query(sql);
          } finally {
            await client.end();
          }
        };
        await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
        await admin(`CREATE DATABASE "${name}"`).catch((error) => {
          throw new Error(`catalog: could not create PostgreSQL database ${name} beside BENCH_DATABASE_URL (the bench needs CREATEDB): ${error.message}`);
        });
        url.pathname = `/${name}`;
        return { kind: 'postgres', url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
      },
    });
  }
  return list;
}

/**
 * Writes the bulk load out before anything is measured: otherwise the kernel (SQLite's file) or PostgreSQL's
 * checkpointer flushes the ~200 MB of a 50,000-node catalog while the first figures run, and they measure that.
 */
async function settleWrites(database) {
  if (database.kind === 'postgres') {
    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query('CHECKPOINT');
    } catch (error) {
      console.log(`catalog: CHECKPOINT refused (${error.message}); measuring without it`);
    } finally {
      await client.end();
    }
  }
  execFileSync('sync');
}

/** Raises the search generation (see the search-generation migration) from outside the service. */
async function searchGenerationRaiser(database) {
  const raise = `UPDATE "catalog_counts" SET "search_generation" = "search_generation" + 1`;
  if (database.kind === 'sqlite') {
    const db = new Database(database.path, { timeout: 5000 });
    const statement = db.prepare(raise);
    return { raise: async () => statement.run(), close: async () => db.close() };
  }
  const client = new Client({ connectionString: database.url });
  await client.connect();
  return { raise: () => client.query(raise), close: () => client.end() };
}

const ROUTE_LABELS = {
  firstPage: `first page (${PAGE})`,
  lastPage: `last full page (${PAGE})`,
  middlePage: `middle page (${PAGE})`,
  searchCommon: `search "${COMMON_TERM}" (${PAGE})`,
  searchCommonRecounted: `search "${COMMON_TERM}" (${PAGE}), matches re-read`,
  searchRare: `search "${RARE_TERM}" (${PAGE})`,
  node: 'GET /nodes/{id}',
  conditional: 'GET /nodes/{id} If-None-Match',
  install: 'GET /nodes/{id}/install',
  page1000: `page of ${BIG_PAGE}`,
  page1000Compressed: `page of ${BIG_PAGE}, gzip/br accepted`,
  sync: `sync ?timestamp (${TOUCHED} changed)`,
};
const GROWTH_TARGETS = ['firstPage', 'lastPage', 'searchCommon', 'searchRare', 'node'];
/** The routes whose growth is measured with both sizes in turn: the growth targets' and the sync's. */
const GROWTH_IN_TURN = [...GROWTH_TARGETS, 'sync'];

/**
 * The growth targets' routes at the small and the large size, requested in turn against two services, one on each
 * catalog (see measureAlternating), so a route's two p50s come from the same minutes.
 */
async function measureGrowthInTurn(small, large, plan, archive) {
  const services = [];
  try {
    for (const { database } of [small, large]) services.push(await startService(database.url, undefined, { STORAGE_DIR: archive.dir }));
    const growth = {};
    for (const route of GROWTH_IN_TURN) {
      const urls = [small, large].map(({ paths }, k) => (i) => `${services[k].url}${paths[route](i)}`);
      const [atSmall, atLarge] = await measureAlternating(urls, plan);
      growth[route] = { smallP50Ms: atSmall.p50Ms, largeP50Ms: atLarge.p50Ms, growth: round(atLarge.p50Ms / atSmall.p50Ms) };
    }
    return growth;
  } finally {
    for (const service of services) await stopService(service);
  }
}

function growthOf(small, large) {
  const growth = {};
  for (const route of Object.keys(ROUTE_LABELS)) {
    const a = small.routes[route]?.p50Ms;
    const b = large.routes[route]?.p50Ms;
    growth[route] = a && b ? round(b / a) : null;
  }
  growth.crawlPer1000Nodes = round(large.crawl.msPer1000Nodes / small.crawl.msPer1000Nodes);
  return growth;
}

/** Every target of the issue and CONTRACT §6/§7, met or not, for one database. */
function targetsOf(kind, small, large, growthInTurn) {
  const targets = [];
  const add = (target, value, met) => targets.push({ database: kind, target, value, met: Boolean(met) });
  const r = large.routes;
  const at = `at ${large.n}`;
  for (const route of GROWTH_TARGETS) {
    const { growth: inTurn } = growthInTurn[route];
    add(`growth ${small.n}→${large.n} of ${ROUTE_LABELS[route]} p50 ≤ ${MAX_GROWTH} (both sizes in turn)`, inTurn, inTurn <= MAX_GROWTH);
  }
  const ratio = (a, b) => round(a / b);
  const { firstPage, lastPage, node, page1000 } = large.costs;
  const alternating = `p50s of the two in turn, ${at}`;
  add(`page of ${PAGE} ≤ ${PAGE_IN_SINGLE_GETS} single-node GETs (${alternating})`, ratio(firstPage.p50Ms, node.p50Ms), firstPage.p50Ms <= PAGE_IN_SINGLE_GETS * node.p50Ms);
  add(`last page ≤ ${LAST_OVER_FIRST} × first page (${alternating})`, ratio(lastPage.p50Ms, firstPage.p50Ms), lastPage.p50Ms <= LAST_OVER_FIRST * firstPage.p50Ms);
  add(`page of ${BIG_PAGE} ≤ ${BIG_PAGE_IN_SINGLE_GETS} single-node GETs (${alternating})`, ratio(page1000.p50Ms, node.p50Ms), page1000.p50Ms <= BIG_PAGE_IN_SINGLE_GETS * node.p50Ms);
  // Bound by serialization, not by queries: every page of the crawl costs about what the first does.
  add(
    `full crawl (${large.crawl.pages} pages of ${BIG_PAGE}): per ${BIG_PAGE} nodes ≤ ${LAST_OVER_FIRST} × first page of ${BIG_PAGE} (${at})`,
    ratio(large.crawl.msPer1000Nodes, r.page1000.p50Ms),
    large.crawl.msPer1000Nodes <= LAST_OVER_FIRST * r.page1000.p50Ms,
  );
  add(`crawl lists every node once (${at})`, `${large.crawl.distinctNodes} distinct of ${large.crawl.nodes} fetched, ${large.crawl.listed} listed`, large.crawl.distinctNodes === large.crawl.listed && large.crawl.nodes === large.crawl.listed);
  for (const size of [small, large]) {
    const c = size.checks.totals;
    add(`search and listing totals as seeded (at ${size.n})`, `listed ${c.listed}/${c.expectedListed}, common ${c.common}/${c.expectedCommon}, rare ${c.rare}/${c.expectedRare}`, c.listed === c.expectedListed && c.common === c.expectedCommon && c.rare === c.expectedRare);
  }
  add('GET /nodes/{id} sends an ETag and answers If-None-Match with 304', large.conditional.etag ? `${large.conditional.answered304}/${large.conditional.requests} answered 304` : 'no ETag', large.conditional.etag && large.conditional.answered304 === large.conditional.requests);
  add('GET /nodes sends an ETag and answers If-None-Match with 304', large.headers.listEtag ? `status ${large.headers.listIfNoneMatchStatus}` : 'no ETag', large.headers.listIfNoneMatchStatus === 304);
  const isPublic = (value) => /\bpublic\b/.test(value ?? '') && /max-age=\d+/.test(value ?? '');
  add('GET /nodes: Cache-Control public, max-age', large.headers.listCacheControl ?? 'absent', isPublic(large.headers.listCacheControl));
  add('GET /nodes/{id}: Cache-Control public, max-age', large.headers.nodeCacheControl ?? 'absent', isPublic(large.headers.nodeCacheControl));
  add('GET /nodes/{id}/install never cached', large.headers.installCacheControl ?? 'absent', /no-store/.test(large.headers.installCacheControl ?? ''));
  for (const [name, size] of Object.entries(large.sizes)) {
    if (size.rawBytes < 1024) continue;
    add(
      `${name} reply (${size.rawBytes} B) compressed (gzip or br)`,
      size.contentEncoding ? `${size.contentEncoding} ${size.compressedBytes} B` : 'not compressed',
      ['gzip', 'br'].includes(size.contentEncoding) && size.compressedBytes < size.rawBytes,
    );
  }
  add(`incremental sync returns exactly the ${TOUCHED} changed nodes, in one request (at ${small.n} and ${large.n})`, `${small.sync.returned}, ${large.sync.returned}`, small.sync.returned === small.sync.touched && large.sync.returned === large.sync.touched);
  const { growth: syncGrowth } = growthInTurn.sync;
  add(`incremental sync cost tracks the changes, not the catalog: growth ${small.n}→${large.n} ≤ ${MAX_GROWTH} (both sizes in turn)`, syncGrowth, syncGrowth <= MAX_GROWTH);
  return targets;
}

function printTable(kind, small, large, growth, growthInTurn) {
  const header = ['route', `${small.n} p50`, `${small.n} p99`, `${large.n} p50`, `${large.n} p99`, 'growth'];
  const lines = Object.entries(ROUTE_LABELS)
    .filter(([route]) => small.routes[route] || large.routes[route])
    .map(([route, label]) => [label, small.routes[route]?.p50Ms, small.routes[route]?.p99Ms, large.routes[route]?.p50Ms, large.routes[route]?.p99Ms, growth[route]]);
  lines.push([`full crawl, ms per ${BIG_PAGE} nodes`, small.crawl.msPer1000Nodes, '', large.crawl.msPer1000Nodes, '', growth.crawlPer1000Nodes]);
  const cells = lines.map((line) => line.map((cell) => String(cell ?? '—')));
  const widths = header.map((title, i) => Math.max(title.length, ...cells.map((row) => row[i].length)) + 2);
  console.log(`\ncatalog on ${kind} (one request at a time, ms):`);
  for (const row of [header, ...cells]) console.log(row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join(''));
  const inTurn = GROWTH_IN_TURN.map((route) => `${ROUTE_LABELS[route]} ${growthInTurn[route].largeP50Ms}/${growthInTurn[route].smallP50Ms} = ${growthInTurn[route].growth}`);
  console.log(`  growth, both sizes in turn (ms at ${large.n}/${small.n}): ${inTurn.join('; ')}`);
  for (const size of [small, large]) {
    const { firstPage, lastPage, node, page1000 } = size.costs;
    console.log(
      `  ${size.n} nodes, in turn: page of ${PAGE} ${firstPage.p50Ms} ms, last full page ${lastPage.p50Ms} ms, GET /nodes/{id} ${node.p50Ms} ms, ` +
        `page of ${BIG_PAGE} ${page1000.p50Ms} ms: pages of ${PAGE} and ${BIG_PAGE} ${round(firstPage.p50Ms / node.p50Ms)} and ${round(page1000.p50Ms / node.p50Ms)} single GETs`,
    );
  }
  for (const size of [small, large]) {
    const s = size.sizes;
    console.log(
      `  ${size.n} nodes: seeded in ${size.seed.seedMs} ms (${size.seed.versions} versions; schema ${size.seed.schemaMs} ms); full crawl ${size.crawl.ms} ms in ${size.crawl.pages} pages (${size.crawl.clientMs} ms with the client's parsing); ` +
        `sizes raw/compressed: page of ${PAGE} ${s.page100.rawBytes}/${s.page100.compressedBytes} B, page of ${BIG_PAGE} ${s.page1000.rawBytes}/${s.page1000.compressedBytes} B, node ${s.node.rawBytes}/${s.node.compressedBytes} B`,
    );
  }
}

/** The catalog section: returns what goes under `catalog` in the results file; throws when a request fails. */
async function runCatalog({ smoke }) {
  const sizes = process.env.BENCH_CATALOG_SIZES ? process.env.BENCH_CATALOG_SIZES.split(',').map(Number) : smoke ? [200, 1000] : [1000, 50000];
  const plan = smoke ? { warmUp: 5, count: 10, min: 5, budgetMs: 1000 } : { warmUp: 20, count: 300, min: 20, budgetMs: 4000 };
  const dir = mkdtempSync(join(tmpdir(), 'registry-catalog-bench-'));
  const archiveBytes = Buffer.from(zipSync({ 'bench_node/__init__.py': new TextEncoder().encode('NODE_CLASS_MAPPINGS = {}\n') }));
  const sha256 = createHash('sha256').update(archiveBytes).digest('hex');
  const archive = { dir: join(dir, 'archives'), sha256, bytes: archiveBytes };
  // The store's layout: {STORAGE_DIR}/{sha[0..2]}/{sha}.zip.
  mkdirSync(join(archive.dir, sha256.slice(0, 2)), { recursive: true });
  writeFileSync(join(archive.dir, sha256.slice(0, 2), `${sha256}.zip`), archiveBytes);
  const result = {
    when: new Date().toISOString(),
    commit: commitOf(),
    smoke,
    sizes,
    pageSize: PAGE,
    bigPageSize: BIG_PAGE,
    terms: { common: { term: COMMON_TERM, fraction: 1 / COMMON_EVERY }, rare: { term: RARE_TERM, nodes: RARE_COUNT } },
    touched: TOUCHED,
    requestsPerFigure: plan,
    databases: {},
    targets: [],
  };
  try {
    for (const db of databases(dir)) {
      const benched = [];
      try {
        for (const n of sizes) {
          const entry = { database: await db.create(n) };
          benched.push(entry);
          Object.assign(entry, await benchCatalog(entry.database, n, plan, archive));
        }
        const [small, large] = [benched[0], benched[benched.length - 1]];
        const growth = growthOf(small.run, large.run);
        const growthInTurn = await measureGrowthInTurn(small, large, plan, archive);
        const runs = benched.map(({ run }) => run);
        result.databases[db.kind] = { schema: small.run.schema, runs: Object.fromEntries(runs.map((run) => [run.n, run])), growth, growthInTurn };
        result.targets.push(...targetsOf(db.kind, small.run, large.run, growthInTurn));
        printTable(db.kind, small.run, large.run, growth, growthInTurn);
      } finally {
        // Each one dropped even when another's drop fails; a failed drop is reported, not thrown over the run's error.
        for (const { database } of benched) await database.drop().catch((error) => console.error(`catalog: could not drop a ${db.kind} database: ${error.message}`));
      }
      const { schema } = result.databases[db.kind];
      const { triggers, searchStructures } = schema;
      // Only a separate search table (SQLite's FTS) can miss bulk-inserted rows; an index (PostgreSQL's GIN) cannot.
      if (db.kind === 'sqlite' && searchStructures.length > 0 && triggers.length === 0) {
        console.log(`  note: ${db.kind} has search structures (${searchStructures.join(', ')}) and no triggers: bulk-inserted rows may be missing from them`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\ncatalog targets (${result.commit ?? 'unknown commit'}${smoke ? ', smoke sizes' : ''}):`);
  for (const t of result.targets) console.log(`  [${t.met ? 'met' : 'NOT MET'}] ${t.database}: ${t.target}: ${t.value}`);
  const missed = result.targets.filter((t) => !t.met).length;
  console.log(`catalog: ${result.targets.length - missed} of ${result.targets.length} targets met (a missed target is reported, not a failure)`);
  return result;
}

module.exports = { runCatalog };
