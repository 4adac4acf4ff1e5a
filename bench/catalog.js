// The benchmark's catalog section (`npm run bench [-- --smoke] [-- --only catalog]`): catalog reads at two
// catalog sizes (1,000 and 50,000 nodes; 200 and 1,000 with --smoke), on SQLite and, when BENCH_DATABASE_URL is
// set, on PostgreSQL (a fresh sibling database per build and size, dropped afterwards). With BENCH_BEFORE=<dir>
// (another checkout with its own built dist/, e.g. a git worktree of the commit before a change) that build is
// measured too, on its own databases seeded with the same catalog, in the same rounds: before and after side by side.
//
// Each database gets its schema from the build's own migrations (the service started once and stopped), then rows
// are bulk-inserted into the service's tables with the drivers (better-sqlite3 in one transaction; pg with INSERT
// ... SELECT FROM unnest(...) in batches), in the formats the service writes. Every build at every size is then
// served at once and read one request at a time over a keep-alive connection, each route of each service in turn,
// round after round: the first and last full page of 100, a single GET, a common term, a rare term and a rare
// phrase (a word in nearly every node and a rare number), a page of 1,000; and, for builds with the frontend's
// registry (CONTRACT §9: their migrations create `comfy_nodes`), the first page with the version chosen for an app
// version and form factor, the node providing a node class, and GET /nodes/search for the rare term and for a typo
// of it. Twice: cached (the same anonymous request
// again, which the read cache serves) and uncached (each request right after a content write through the API, which
// empties it; the write is not timed). Then a crawl of the catalog at 100 a page by one client, each figure's growth
// (large ÷ small catalog) and the catalog issue's targets, reported as met or not: a missed target does not fail the
// run, a failed request does.
const { execFileSync } = require('node:child_process');
const { createHash, randomUUID } = require('node:crypto');
const { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const { Agent, request } = require('node:http');
const { tmpdir } = require('node:os');
const { join, resolve } = require('node:path');
const Database = require('better-sqlite3');
const { zipSync } = require('fflate');
const { Client } = require('pg');
const { ROOT, cliOf, commitOf, percentile, registerFoldCase, round, startService, stopService } = require('./lib');

const PAGE = 100;
const BIG_PAGE = 1000;
/** In the description (or the name) of one node in COMMON_EVERY. */
const COMMON_TERM = 'upscale';
const COMMON_EVERY = 10;
/** In exactly RARE_COUNT nodes at every size: one id, one description, one author. */
const RARE_TERM = 'quokka';
const RARE_COUNT = 3;
/**
 * A rare phrase made of a word in nearly every node and a rare one: every description ends "Adds N nodes." (N from
 * 1 to NODE_COUNTS), and exactly RARE_COUNT nodes at every size add PHRASE_NUMBER nodes instead.
 */
const PHRASE_NUMBER = 4242;
const NODE_COUNTS = 24;
const RARE_PHRASE = `${PHRASE_NUMBER} nodes`;
/** Distinct nodes the single-node reads cycle through. */
const SAMPLE_NODES = 100;
/** A typo of RARE_TERM: in no node's text, close (trigram similarity 0.62) to the id that starts with RARE_TERM. */
const TYPO_TERM = 'quoka';
/**
 * The v-th version of a node supports apps from 0.3.(v × APP_PATCH_STEP) on, and one of VERSION_OS (in the CLI's
 * spelling; an empty list: every OS), so the compatible page's app version and form factor choose an older version
 * for many nodes with 2 or 3 versions.
 */
const APP_PATCH_STEP = 20;
const VERSION_OS = [[], ['Microsoft :: Windows', 'POSIX :: Linux'], ['MacOS :: MacOS X']];
const COMPAT = { appPatch: 25, formFactor: 'git-linux', os: 'POSIX :: Linux' };
/** Node classes of each node's latest version (`${PascalCaseOfId}Node${k}`, unique names). */
const CLASSES_PER_NODE = 2;
const PUBLISHER = 'bench-catalog';
const PUBLISHER_NAME = 'Catalog Bench';

/** The routes measured, in turn; the growth targets' routes; cached (the same request again) and uncached (after a write). */
const ROUTES = {
  firstPage: `first page (${PAGE})`,
  lastPage: `last full page (${PAGE})`,
  node: 'GET /nodes/{id}',
  searchCommon: `search "${COMMON_TERM}" (1 in ${COMMON_EVERY})`,
  searchRare: `search "${RARE_TERM}" (${RARE_COUNT} nodes)`,
  searchPhrase: `search "${RARE_PHRASE}" (${RARE_COUNT} nodes)`,
  page1000: `page of ${BIG_PAGE}`,
  // The frontend's registry (CONTRACT §9), measured for builds that have it.
  compatPage: `first page (${PAGE}) for 0.3.${COMPAT.appPatch} ${COMPAT.formFactor}`,
  comfyNode: 'GET /comfy-nodes/{name}/node',
  nodeSearch: `/nodes/search "${RARE_TERM}" (${RARE_COUNT} nodes)`,
  nodeSearchTypo: `/nodes/search "${TYPO_TERM}" (typo, close to 1 id)`,
};
const GROWTH_ROUTES = ['firstPage', 'lastPage', 'node', 'searchCommon', 'searchRare', 'searchPhrase', 'compatPage', 'comfyNode', 'nodeSearch'];
const MODES = ['cached', 'uncached'];

// Targets (the catalog issue, and the frontend registry's): growth small → large catalog; a page's cost in another
// route's requests measured the same way (`per`: single GETs, or the plain first page); the crawl's seconds by
// database (a figure, not a timed test).
const MAX_GROWTH = 1.5;
const PAGE_COSTS = [
  { mode: 'uncached', route: 'firstPage', per: 'node', most: 15 },
  { mode: 'uncached', route: 'page1000', per: 'node', most: 100 },
  { mode: 'cached', route: 'firstPage', per: 'node', most: 2 },
  { mode: 'cached', route: 'compatPage', per: 'firstPage', most: 2 },
  { mode: 'uncached', route: 'compatPage', per: 'firstPage', most: 2 },
];
const COST_UNITS = { node: 'single GETs', firstPage: 'first pages' };
const CRAWL_SECONDS = { sqlite: 3, postgres: 5 };

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
  if ([COMMON_TERM, RARE_TERM, TYPO_TERM, String(PHRASE_NUMBER)].some((term) => word.includes(term))) throw new Error(`word list: '${word}' contains a search term`);
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
/** A node class of a node, by its id: `ComfyUI-LatentMask-3` → `ComfyUILatentMask3Node1`. */
const classOf = (nodeId, k) => `${nodeId.split(/[^A-Za-z0-9]+/).map(capitalize).join('')}Node${k}`;
/** Whether the v-th version of a node (supporting `os`) fits the compatible page's app version and form factor. */
const fitsCompat = (v, os) => v * APP_PATCH_STEP <= COMPAT.appPatch && (os.length === 0 || os.includes(COMPAT.os));

/** SQLite datetime as TypeORM stores it: 'YYYY-MM-DD HH:MM:SS.SSS', UTC. */
const sqliteDate = (date) => date.toISOString().replace('T', ' ').replace('Z', '');

/**
 * N nodes with 1–3 versions each (all active, with the archive; each with its app-version range and OS list), and
 * CLASSES_PER_NODE node classes for each node's latest version, as column → value rows in the service's column
 * names; `compatible`: the version the compatible page should show for each node, and whether it is an older one. Dates are Date and booleans
 * boolean here; each driver's writer converts them.
 */
function buildCatalog(n, { sha256, userId }) {
  const random = prng(20261126);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const words = (count) => Array.from({ length: count }, () => pick(WORDS));
  const rare = new Map(Array.from({ length: RARE_COUNT }, (_, k) => [Math.floor((n * (2 * k + 1)) / (2 * RARE_COUNT)), k]));
  // The phrase's nodes: next to the rare term's.
  const phrase = new Set([...rare.keys()].map((i) => i + 1));
  const now = Date.now();
  const yearMs = 365 * 24 * 3600 * 1000;
  const user = { id: userId, email: 'catalog-bench@example.com', name: 'Catalog Bench', is_admin: false, credits: 0, created_at: new Date(now - 2 * yearMs) };
  const publisher = {
    id: PUBLISHER,
    name: PUBLISHER_NAME,
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
  const comfyNodes = [];
  const compatible = new Map();
  const expected = { active: 0, common: 0, rare: 0, phrase: 0 };
  for (let i = 0; i < n; i += 1) {
    const rareSlot = rare.get(i);
    const common = i % COMMON_EVERY === 3;
    const inPhrase = phrase.has(i);
    // 2% deleted, 1% banned (never a node holding a search term, so the expected counts stay exact).
    const searched = rareSlot !== undefined || common || inPhrase;
    const status = !searched && i % 50 === 7 ? 'NodeStatusDeleted' : !searched && i % 100 === 11 ? 'NodeStatusBanned' : 'NodeStatusActive';
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
    const osShift = Math.floor(random() * VERSION_OS.length);
    const osOf = (v) => VERSION_OS[(osShift + v) % VERSION_OS.length];
    const accelerators = random() < 0.2 ? json(['cuda']) : '[]';
    const tagCount = Math.floor(random() * 4);
    const versionCount = 1 + (i % 3);
    const latestVersion = versionCount - 1;
    const latestId = randomUUID();
    for (let v = 0; v < versionCount; v += 1) {
      versions.push({
        id: v === latestVersion ? latestId : randomUUID(),
        node_id: id,
        version: `1.${v}.${i % 7}`,
        changelog: `${capitalize(words(1)[0])} ${words(6).join(' ')}.`,
        dependencies: json(DEPENDENCIES.slice(i % 5, (i % 5) + (i % 4))),
        deprecated: false,
        // Every version is installable (its archive's link is made per reply): the compatible page may show an older one.
        download_url: null,
        archive_sha256: sha256,
        status: 'NodeVersionStatusActive',
        status_reason: null,
        app_node_extract_status: v === latestVersion ? 'success' : null,
        supported_os: json(osOf(v)),
        supported_accelerators: accelerators,
        supported_app_version: `>=0.3.${v * APP_PATCH_STEP}`,
        supported_app_frontend_version: null,
        tags: '[]',
        tags_admin: '[]',
        created_at: new Date(createdAt.getTime() + v * 3600 * 1000),
      });
    }
    const fitting = Array.from({ length: versionCount }, (_, v) => v).filter((v) => fitsCompat(v, osOf(v)));
    const chosen = fitting.length > 0 ? Math.max(...fitting) : latestVersion;
    compatible.set(id, { version: `1.${chosen}.${i % 7}`, older: chosen !== latestVersion });
    for (let k = 1; k <= CLASSES_PER_NODE; k += 1) {
      comfyNodes.push({
        node_version_id: latestId,
        name: classOf(id, k),
        category: `bench/${w1}`,
        description: `${capitalize(w1)} ${w2} ${k}`,
        function: 'run',
        input_types: json({ required: { image: ['IMAGE'] } }),
        return_types: json(['IMAGE']),
        return_names: json(['image']),
        output_is_list: json([false]),
        deprecated: false,
        experimental: false,
      });
    }
    nodes.push({
      id,
      normalized_id: id.toLowerCase(),
      publisher_id: PUBLISHER,
      publisher_name: PUBLISHER_NAME,
      name: nameWords.join(' '),
      description: `${capitalize(descriptionWords.join(' '))}. Adds ${inPhrase ? PHRASE_NUMBER : 1 + (i % NODE_COUNTS)} nodes.`,
      author,
      category: null,
      license: LICENSES[i % LICENSES.length],
      icon: i % 5 === 0 ? `https://raw.githubusercontent.com/${handle}/${id}/main/icon.png` : null,
      banner_url: null,
      repository: `https://github.com/${handle}/${id}`,
      tags: json(TAGS.slice(i % TAGS.length, (i % TAGS.length) + tagCount)),
      tags_admin: '[]',
      supported_os: json(osOf(latestVersion)),
      supported_accelerators: accelerators,
      supported_app_version: `>=0.3.${latestVersion * APP_PATCH_STEP}`,
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
      if (inPhrase) expected.phrase += 1;
    }
  }
  return { user, publisher, member, nodes, versions, comfyNodes, compatible, expected };
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
    publisher_name: 'text',
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
  comfy_nodes: {
    node_version_id: 'text',
    name: 'text',
    category: 'text',
    description: 'text',
    function: 'text',
    input_types: 'text',
    return_types: 'text',
    return_names: 'text',
    output_is_list: 'text',
    deprecated: 'boolean',
    experimental: 'boolean',
  },
};
/** Parents first, so every foreign key holds as rows go in. */
const TABLE_ORDER = ['users', 'publishers', 'publisher_members', 'nodes', 'node_versions', 'comfy_nodes'];

/** Each table's rows, without the tables that get none (a build without node classes has no `comfy_nodes`). */
function tableRows(catalog) {
  const rows = {
    users: [catalog.user],
    publishers: [catalog.publisher],
    publisher_members: [catalog.member],
    nodes: catalog.nodes,
    node_versions: catalog.versions,
    comfy_nodes: catalog.comfyNodes ?? [],
  };
  return TABLE_ORDER.filter((table) => rows[table].length > 0).map((table) => [table, rows[table]]);
}

/**
 * One transaction, one prepared INSERT per table, values as TypeORM writes them on SQLite. Columns the build's schema
 * lacks are left out (an older build, with BENCH_BEFORE), as on PostgreSQL.
 */
function seedSqlite(path, catalog, root = ROOT) {
  const db = new Database(path);
  try {
    db.pragma('foreign_keys = ON');
    registerFoldCase(db, root);
    const toSqlite = (value) => (value instanceof Date ? sqliteDate(value) : typeof value === 'boolean' ? (value ? 1 : 0) : value);
    db.transaction(() => {
      for (const [table, rows] of tableRows(catalog)) {
        const present = new Set(db.prepare('SELECT name FROM pragma_table_info(?)').all(table).map((column) => column.name));
        const columns = Object.keys(COLUMNS[table]).filter((column) => present.has(column));
        const insert = db.prepare(`INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
        for (const row of rows) insert.run(columns.map((column) => toSqlite(row[column])));
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
    for (const [table, rows] of tableRows(catalog)) {
      const present = new Set((await client.query('SELECT column_name FROM information_schema.columns WHERE table_name = $1', [table])).rows.map((row) => row.column_name));
      const columns = Object.entries(COLUMNS[table]).filter(([column]) => present.has(column));
      const sql =
        `INSERT INTO "${table}" (${columns.map(([c]) => `"${c}"`).join(', ')}) ` +
        `SELECT * FROM unnest(${columns.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ')})`;
      for (let start = 0; start < rows.length; start += 5000) {
        const batch = rows.slice(start, start + 5000);
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

/**
 * Triggers and full-text/trigram structures the migrations created: what bulk INSERTs must keep in step; and whether
 * they created `comfy_nodes` (the frontend's registry, CONTRACT §9: its routes are measured only then).
 */
async function describeSchema(database) {
  if (database.kind === 'sqlite') {
    const db = new Database(database.path, { readonly: true });
    try {
      const triggers = db.prepare(`SELECT name, tbl_name AS "table" FROM sqlite_master WHERE type = 'trigger' ORDER BY name`).all();
      const searchStructures = db
        .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%' ORDER BY name`)
        .all()
        .map((row) => row.name);
      const comfyNodes = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'comfy_nodes'`).get() !== undefined;
      return { triggers, searchStructures, comfyNodes };
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
    const comfyNodes = (await client.query(`SELECT to_regclass('public.comfy_nodes') IS NOT NULL AS present`)).rows[0].present;
    return { triggers, searchStructures, comfyNodes };
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------------------------------------- HTTP, one at a time

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** One GET over the keep-alive connection; the body as received and the time to its last byte. */
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

// ---------------------------------------------------------------------------------------------- builds, databases

/**
 * The builds measured: the current checkout, and with BENCH_BEFORE=<dir> (another checkout, built: its own
 * dist/) that one too, on its own databases seeded with the same catalog, measured in turn with this one.
 */
function builds() {
  const list = [];
  if (process.env.BENCH_BEFORE) {
    const root = resolve(process.env.BENCH_BEFORE);
    if (!existsSync(join(root, 'dist/src/main.js'))) throw new Error(`BENCH_BEFORE=${root}: no dist/src/main.js (build that checkout first)`);
    let commit = null;
    try {
      commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root }).toString().trim();
    } catch {
      // not a git checkout
    }
    list.push({ label: 'before', root, commit });
  }
  list.push({ label: 'after', root: ROOT, commit: commitOf() });
  return list;
}

/**
 * Fresh databases, one per build and catalog size (a build's migrations never meet another's schema): SQLite
 * files, or PostgreSQL databases beside BENCH_DATABASE_URL's.
 */
function databases(dir) {
  const list = [
    {
      kind: 'sqlite',
      async create(build, n) {
        const path = join(dir, `catalog-${build}-${n}.db`);
        return { kind: 'sqlite', path, url: `sqlite:${path}`, drop: async () => {} };
      },
    },
  ];
  const pgUrl = process.env.BENCH_DATABASE_URL;
  if (pgUrl) {
    const admin = async (sql) => {
      const client = new Client({ connectionString: pgUrl });
      await client.connect();
      try {
        await client.query(sql);
      } finally {
        await client.end();
      }
    };
    list.push({
      kind: 'postgres',
      async create(build, n) {
        const url = new URL(pgUrl);
        const name = `${url.pathname.slice(1).replace(/[^a-z0-9_]/gi, '_').toLowerCase() || 'bench'}_catalog_${build}_${n}`.slice(0, 63);
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

// ----------------------------------------------------------------------------------------------------- one catalog

/** A build's database at one size: its schema by the build's own migrations, the catalog seeded, an owner's token. */
async function prepare(database, build, n, archive) {
  const userId = randomUUID();
  const catalog = buildCatalog(n, { sha256: archive.sha256, userId });
  const schemaStarted = Date.now();
  await stopService(await startService(database.url, undefined, { STORAGE_DIR: archive.dir }, build.root));
  const schemaMs = Date.now() - schemaStarted;
  const schema = await describeSchema(database);
  const seedStarted = process.hrtime.bigint();
  const seeded = schema.comfyNodes ? catalog : { ...catalog, comfyNodes: [] };
  if (database.kind === 'sqlite') seedSqlite(database.path, seeded, build.root);
  else await seedPostgres(database.url, seeded);
  const seedMs = Math.round(Number(process.hrtime.bigint() - seedStarted) / 1e6);
  const seed = { nodes: n, versions: catalog.versions.length, comfyNodes: seeded.comfyNodes.length, activeNodes: catalog.expected.active, schemaMs, seedMs };
  console.log(
    `catalog: ${database.kind} ${build.label} ${n} nodes: schema by its migrations in ${schemaMs} ms, ${n} nodes + ${seed.versions} versions + ${seed.comfyNodes} node classes inserted in ${seedMs} ms`,
  );
  await settleWrites(database);
  const { token } = cliOf(build.root, database.url, 'token', 'create', '--user', userId);
  return { database, build, n, catalog, token, schema, seed };
}

/**
 * What the frontend's routes answer as seeded (before anything is cached): the rare term's and the typo's totals,
 * the versions chosen on the compatible first page, and the node providing the sample's first class.
 */
async function frontendChecks(base, catalog, active, sample, paths) {
  const compatPage = (await getJson(`${base}${paths.compatPage()}`)).json.nodes;
  const provider = (await getJson(`${base}${paths.comfyNode(0, 'cached')}`)).json.id;
  return {
    nodeSearch: (await getJson(`${base}${paths.nodeSearch()}`)).json.total,
    expectedNodeSearch: catalog.expected.rare,
    typo: (await getJson(`${base}${paths.nodeSearchTypo()}`)).json.total,
    expectedTypo: active.filter((node) => node.id.startsWith(`${RARE_TERM}-`)).length,
    compatPage: compatPage.length,
    compatChosen: compatPage.filter((node) => node.latest_version?.version === catalog.compatible.get(node.id).version).length,
    compatOlder: compatPage.filter((node) => catalog.compatible.get(node.id).older).length,
    classProvider: provider === sample[0],
  };
}

/**
 * The prepared catalog's service, started: its paths by route and `write()`, a content write through the API (the
 * description of a node no measured request reads, by its owner) that empties the read cache.
 */
async function serve(prepared, archive) {
  const { database, build, n, catalog, token, schema } = prepared;
  const service = await startService(database.url, undefined, { STORAGE_DIR: archive.dir }, build.root);
  const base = service.url;
  const active = catalog.nodes.filter((node) => node.status === 'NodeStatusActive');
  const step = Math.max(1, Math.floor(active.length / SAMPLE_NODES));
  const sample = Array.from({ length: Math.min(SAMPLE_NODES, active.length) }, (_, k) => active[k * step].id);
  const searched = (node) => [COMMON_TERM, RARE_TERM, RARE_PHRASE, TYPO_TERM].some((term) => `${node.id} ${node.name} ${node.description} ${node.author}`.toLowerCase().includes(term));
  const scratch = active.findLast((node) => !searched(node) && !sample.includes(node.id));
  const auth = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
  let writes = 0;
  const write = async () => {
    writes += 1;
    await send('PUT', `${base}/publishers/${PUBLISHER}/nodes/${scratch.id}`, auth, JSON.stringify({ description: `${scratch.description} Edited ${writes % 2}.` }));
  };

  const failing = (promise) =>
    promise.catch(async (error) => {
      await stopService(service);
      throw error;
    });
  // Totals as seeded, read before anything is cached.
  const totalOf = async (path) => (await getJson(`${base}${path}`)).json.total;
  const search = (term, route = '/nodes') => `${route}?search=${encodeURIComponent(term)}&limit=${PAGE}`;
  const checks = await failing(
    (async () => ({
      listed: await totalOf(`/nodes?page=1&limit=${PAGE}`),
      expectedListed: catalog.expected.active,
      common: await totalOf(search(COMMON_TERM)),
      expectedCommon: catalog.expected.common,
      rare: await totalOf(search(RARE_TERM)),
      expectedRare: catalog.expected.rare,
      phrase: await totalOf(search(RARE_PHRASE)),
      expectedPhrase: catalog.expected.phrase,
    }))(),
  );
  // The last full page: the catalog's very last page is short, and comparing it with full pages misleads.
  const lastPage = Math.max(1, Math.floor(checks.listed / PAGE));
  // Cached: the same node (its server TTL is 1 s) or class again; uncached: the sample in turn, a class of each node.
  const sampled = (i, mode) => (mode === 'cached' ? 0 : i % sample.length);
  const classes = sample.map((id, k) => classOf(id, 1 + (k % CLASSES_PER_NODE)));
  const paths = {
    firstPage: () => `/nodes?page=1&limit=${PAGE}`,
    lastPage: () => `/nodes?page=${lastPage}&limit=${PAGE}`,
    node: (i, mode) => `/nodes/${sample[sampled(i, mode)]}`,
    searchCommon: () => search(COMMON_TERM),
    searchRare: () => search(RARE_TERM),
    searchPhrase: () => search(RARE_PHRASE),
    page1000: () => `/nodes?page=1&limit=${BIG_PAGE}`,
    ...(schema.comfyNodes && {
      compatPage: () => `/nodes?page=1&limit=${PAGE}&comfyui_version=0.3.${COMPAT.appPatch}&form_factor=${COMPAT.formFactor}`,
      comfyNode: (i, mode) => `/comfy-nodes/${classes[sampled(i, mode)]}/node`,
      nodeSearch: () => search(RARE_TERM, '/nodes/search'),
      nodeSearchTypo: () => search(TYPO_TERM, '/nodes/search'),
    }),
  };
  if (schema.comfyNodes) checks.frontend = await failing(frontendChecks(base, catalog, active, sample, paths));
  return { key: `${build.label} ${n}`, build: build.label, n, kind: database.kind, service, base, paths, write, checks, coldStartMs: service.coldStartMs };
}

/**
 * Every route of every service, one request at a time: round after round, each route requested of each service
 * in turn (before and after, small and large catalog), so the figures a target compares come from the same
 * minutes. `uncached`: each measured request right after a write to the same service (not timed). A service
 * is asked only for the routes its build has (`paths`).
 */
async function measureInTurn(services, mode, plan) {
  const samples = new Map(services.map((service) => [service, Object.fromEntries(Object.keys(service.paths).map((route) => [route, []]))]));
  const oneRound = async (i, keep) => {
    for (const route of Object.keys(ROUTES)) {
      for (const service of services.filter((s) => s.paths[route])) {
        if (mode === 'uncached') await service.write();
        const url = `${service.base}${service.paths[route](i, mode)}`;
        const reply = expectStatus(await get(url), url, [200]);
        if (keep) samples.get(service)[route].push(reply.ms);
      }
    }
  };
  for (let i = 0; i < plan.warmUp; i += 1) await oneRound(i, false);
  const started = Date.now();
  for (let i = 0; i < plan.count && (i < plan.min || Date.now() - started < plan.budgetMs); i += 1) await oneRound(i, true);
  return new Map(services.map((service) => [service, Object.fromEntries(Object.entries(samples.get(service)).map(([route, ms]) => [route, summary(ms)]))]));
}

/** All pages of PAGE, in order, by one anonymous client, right after a write (nothing of it cached). */
async function crawl(service) {
  await service.write();
  const started = process.hrtime.bigint();
  const seen = new Set();
  let pages = 0;
  let nodes = 0;
  let serviceMs = 0;
  for (let page = 1; ; page += 1) {
    const reply = await getJson(`${service.base}/nodes?page=${page}&limit=${PAGE}`);
    serviceMs += reply.ms;
    pages += 1;
    nodes += reply.json.nodes.length;
    for (const node of reply.json.nodes) seen.add(node.id);
    if (page >= reply.json.totalPages || reply.json.nodes.length === 0) break;
  }
  const seconds = round(Number(process.hrtime.bigint() - started) / 1e9);
  return { seconds, serviceSeconds: round(serviceMs / 1000), pages, nodes, distinctNodes: seen.size, listed: service.checks.listed };
}

// ----------------------------------------------------------------------------------------------- figures, targets

/** A page's p50 in another route's p50 (`per`: single GETs, the first page; the same mode, service and rounds). */
const costIn = (routes, route, per) => (routes[route] ? round(routes[route].p50Ms / routes[per].p50Ms) : undefined);

/** The PAGE_COSTS its build has routes for. */
const costsOf = (routes) => PAGE_COSTS.filter(({ mode, route }) => routes[mode][route]);

/** Every target of the catalog issue, met or not, for one database and build. */
function targetsOf(kind, build, runs, growth) {
  const targets = [];
  const add = (target, value, met) => targets.push({ database: kind, build, target, value, met: Boolean(met) });
  const sizes = Object.keys(runs).map(Number);
  const [small, large] = [Math.min(...sizes), Math.max(...sizes)];
  for (const mode of MODES) {
    for (const route of GROWTH_ROUTES.filter((r) => growth[mode][r] !== undefined)) {
      const g = growth[mode][route];
      add(`${mode} ${ROUTES[route]}: growth ${small}→${large} ≤ ${MAX_GROWTH} (in turn)`, g, g <= MAX_GROWTH);
    }
  }
  for (const n of sizes) {
    const { routes, crawl: c, checks } = runs[n];
    for (const { mode, route, per, most } of costsOf(routes)) {
      const cost = costIn(routes[mode], route, per);
      add(`${mode} ${ROUTES[route]} ≤ ${most} ${mode} ${COST_UNITS[per]} (at ${n})`, cost, cost <= most);
    }
    add(`search and listing totals as seeded (at ${n})`, `listed ${checks.listed}/${checks.expectedListed}, common ${checks.common}/${checks.expectedCommon}, rare ${checks.rare}/${checks.expectedRare}, phrase ${checks.phrase}/${checks.expectedPhrase}`, checks.listed === checks.expectedListed && checks.common === checks.expectedCommon && checks.rare === checks.expectedRare && checks.phrase === checks.expectedPhrase);
    const f = checks.frontend;
    if (f) {
      add(
        `frontend reads as seeded (at ${n})`,
        `/nodes/search rare ${f.nodeSearch}/${f.expectedNodeSearch}, typo ${f.typo}/${f.expectedTypo}; compatible versions ${f.compatChosen}/${f.compatPage} as seeded (${f.compatOlder} older than the latest); class → its node ${f.classProvider}`,
        f.nodeSearch === f.expectedNodeSearch && f.typo === f.expectedTypo && f.compatChosen === f.compatPage && f.compatOlder > 0 && f.classProvider,
      );
    }
    add(`crawl lists every node once (at ${n})`, `${c.distinctNodes} distinct of ${c.nodes} fetched, ${c.listed} listed`, c.distinctNodes === c.listed && c.nodes === c.listed);
  }
  const c = runs[large].crawl;
  add(`crawl of ${large} nodes at ${PAGE} a page by one client ≤ ${CRAWL_SECONDS[kind]} s (a figure, not a timed test)`, `${c.seconds} s`, c.seconds <= CRAWL_SECONDS[kind]);
  return targets;
}

function printTable(kind, perBuild, sizes) {
  const labels = Object.keys(perBuild);
  const header = ['route', 'mode', ...sizes.flatMap((n) => labels.map((b) => `${b} ${n}`)), ...labels.map((b) => `${b} growth`)];
  const lines = [];
  for (const route of Object.keys(ROUTES)) {
    for (const mode of MODES) {
      lines.push([ROUTES[route], mode, ...sizes.flatMap((n) => labels.map((b) => perBuild[b].runs[n].routes[mode][route]?.p50Ms)), ...labels.map((b) => perBuild[b].growth[mode][route])]);
    }
  }
  for (const { mode, route, per } of PAGE_COSTS) {
    lines.push([`${ROUTES[route]} in ${COST_UNITS[per]}`, mode, ...sizes.flatMap((n) => labels.map((b) => costIn(perBuild[b].runs[n].routes[mode], route, per))), ...labels.map(() => '')]);
  }
  lines.push([`crawl at ${PAGE} a page, s`, 'after write', ...sizes.flatMap((n) => labels.map((b) => perBuild[b].runs[n].crawl.seconds)), ...labels.map(() => '')]);
  const cells = lines.map((line) => line.map((cell) => String(cell ?? '—')));
  const widths = header.map((title, i) => Math.max(title.length, ...cells.map((row) => row[i].length)) + 2);
  console.log(`\ncatalog on ${kind} (p50 ms, one request at a time, every service in turn; cached: the same request again; uncached: right after a write):`);
  for (const row of [header, ...cells]) console.log(row.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join(''));
  for (const b of labels) {
    for (const n of sizes) {
      const { seed, crawl: c } = perBuild[b].runs[n];
      console.log(`  ${b} ${n} nodes: seeded in ${seed.seedMs} ms (${seed.versions} versions, ${seed.comfyNodes} node classes; schema ${seed.schemaMs} ms); crawl ${c.seconds} s in ${c.pages} pages (${c.serviceSeconds} s to the pages' last bytes)`);
    }
  }
}

/** One database: every build at every size prepared, all served at once, measured in turn, stopped, dropped. */
async function benchDatabase(db, buildList, sizes, plan, archive) {
  const prepared = [];
  const services = [];
  try {
    for (const build of buildList) {
      for (const n of sizes) {
        const database = await db.create(build.label, n);
        prepared.push({ database });
        Object.assign(prepared[prepared.length - 1], await prepare(database, build, n, archive));
      }
    }
    for (const p of prepared) services.push(await serve(p, archive));
    const figures = {};
    for (const mode of MODES) {
      figures[mode] = await measureInTurn(services, mode, plan);
      console.log(`catalog: ${db.kind} ${mode} measured`);
    }
    const perBuild = {};
    for (const [k, service] of services.entries()) {
      const run = {
        seed: prepared[k].seed,
        coldStartMs: service.coldStartMs,
        checks: service.checks,
        routes: Object.fromEntries(MODES.map((mode) => [mode, figures[mode].get(service)])),
        crawl: await crawl(service),
      };
      perBuild[service.build] ??= { commit: prepared[k].build.commit, schema: prepared[k].schema, runs: {} };
      perBuild[service.build].runs[service.n] = run;
    }
    const [small, large] = [sizes[0], sizes[sizes.length - 1]];
    for (const [label, entry] of Object.entries(perBuild)) {
      const p50 = (n, mode, route) => entry.runs[n].routes[mode][route]?.p50Ms;
      const growthOf = (mode, route) => (p50(small, mode, route) === undefined ? undefined : round(p50(large, mode, route) / p50(small, mode, route)));
      entry.growth = Object.fromEntries(MODES.map((mode) => [mode, Object.fromEntries(Object.keys(ROUTES).map((route) => [route, growthOf(mode, route)]))]));
      entry.targets = targetsOf(db.kind, label, entry.runs, entry.growth);
    }
    printTable(db.kind, perBuild, sizes);
    return perBuild;
  } finally {
    for (const { service } of services) await stopService(service);
    // Each one dropped even when another's drop fails; a failed drop is reported, not thrown over the run's error.
    for (const { database } of prepared) await database.drop().catch((error) => console.error(`catalog: could not drop a ${db.kind} database: ${error.message}`));
  }
}

/** The catalog section: returns what goes under `catalog` in the results file; throws when a request fails. */
async function runCatalog({ smoke }) {
  const sizes = process.env.BENCH_CATALOG_SIZES ? process.env.BENCH_CATALOG_SIZES.split(',').map(Number) : smoke ? [200, 1000] : [1000, 50000];
  const plan = smoke ? { warmUp: 2, count: 5, min: 3, budgetMs: 500 } : { warmUp: 5, count: 300, min: 30, budgetMs: 60000 };
  const buildList = builds();
  const dir = mkdtempSync(join(tmpdir(), 'registry-catalog-bench-'));
  const archiveBytes = Buffer.from(zipSync({ 'bench_node/__init__.py': new TextEncoder().encode('NODE_CLASS_MAPPINGS = {}\n') }));
  const sha256 = createHash('sha256').update(archiveBytes).digest('hex');
  const archive = { dir: join(dir, 'archives'), sha256 };
  // The store's layout: {STORAGE_DIR}/{sha[0..2]}/{sha}.zip.
  mkdirSync(join(archive.dir, sha256.slice(0, 2)), { recursive: true });
  writeFileSync(join(archive.dir, sha256.slice(0, 2), `${sha256}.zip`), archiveBytes);
  const result = {
    when: new Date().toISOString(),
    commit: commitOf(),
    builds: buildList.map(({ label, commit }) => ({ label, commit })),
    smoke,
    sizes,
    pageSize: PAGE,
    bigPageSize: BIG_PAGE,
    terms: { common: { term: COMMON_TERM, fraction: 1 / COMMON_EVERY }, rare: { term: RARE_TERM, nodes: RARE_COUNT }, phrase: { term: RARE_PHRASE, nodes: RARE_COUNT }, typo: { term: TYPO_TERM } },
    compatible: { comfyui_version: `0.3.${COMPAT.appPatch}`, form_factor: COMPAT.formFactor },
    requestsPerFigure: plan,
    databases: {},
    targets: [],
  };
  try {
    for (const db of databases(dir)) {
      const perBuild = await benchDatabase(db, buildList, sizes, plan, archive);
      for (const entry of Object.values(perBuild)) {
        result.targets.push(...entry.targets);
        delete entry.targets;
      }
      result.databases[db.kind] = perBuild;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\ncatalog targets (${buildList.map(({ label, commit }) => `${label} ${commit ?? 'unknown commit'}`).join(', ')}${smoke ? ', smoke sizes' : ''}):`);
  for (const t of result.targets) console.log(`  [${t.met ? 'met' : 'NOT MET'}] ${t.database} ${t.build}: ${t.target}: ${t.value}`);
  const missed = result.targets.filter((t) => !t.met).length;
  console.log(`catalog: ${result.targets.length - missed} of ${result.targets.length} targets met (a missed target is reported, not a failure)`);
  return result;
}

// The catalog and its seeding, for looking into a figure by hand (e.g. EXPLAIN on a seeded database).
module.exports = { runCatalog, buildCatalog, seedPostgres, seedSqlite, RARE_PHRASE, COMMON_TERM, RARE_TERM };
