// The practical limit of Node on this machine: plain node:http and the same
// database driver as the service (better-sqlite3, or pg for a PostgreSQL
// run) doing the same work per route as the
// service — token lookup, membership check, the update, the read-back, JSON.
const { createServer } = require('node:http');
const { createHash, randomUUID } = require('node:crypto');
const { registerFoldCase } = require('./lib');

/** The columns a version reply shows (NodeVersionDto), read under the alias `v_` in the node read-back. */
const VERSION_COLUMNS = [
  'id', 'node_id', 'version', 'changelog', 'dependencies', 'deprecated', 'download_url', 'archive_sha256', 'status', 'status_reason',
  'app_node_extract_status', 'supported_os', 'supported_accelerators', 'supported_app_version',
  'supported_app_frontend_version', 'tags', 'tags_admin', 'created_at',
];
const PUBLISHER_COLUMNS = ['id', 'name', 'description', 'website', 'support', 'source_code_repo', 'logo', 'created_at', 'status'];
const aliased = (table, prefix, columns) => columns.map((column) => `${table}.${column} AS ${prefix}${column}`).join(', ');

const SQL = {
  user: 'SELECT u.id, u.is_admin FROM users u JOIN access_tokens t ON t.user_id = u.id WHERE t.token_hash = $1 AND t.revoked_at IS NULL',
  member: 'SELECT role FROM publisher_members WHERE publisher_id = $1 AND user_id = $2',
  node: 'SELECT * FROM nodes WHERE normalized_id = $1',
  nodeFull: `SELECT n.*, ${aliased('p', 'p_', PUBLISHER_COLUMNS)}, ${aliased('v', 'v_', VERSION_COLUMNS)}
     FROM nodes n JOIN publishers p ON p.id = n.publisher_id LEFT JOIN node_versions v ON v.id = n.latest_version_id
     WHERE n.normalized_id = $1`,
  updateNode: 'UPDATE nodes SET description = $1, updated_at = $2 WHERE id = $3',
  version: 'SELECT * FROM node_versions WHERE node_id = $1 AND (id = $2 OR version = $3)',
  updateVersion: 'UPDATE node_versions SET changelog = $1 WHERE id = $2',
  versionById: 'SELECT * FROM node_versions WHERE id = $1',
  review: 'SELECT id FROM reviews WHERE node_id = $1 AND user_id = $2',
  insertReview: 'INSERT INTO reviews (id, node_id, user_id, star, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6)',
  updateReview: 'UPDATE reviews SET star = $1, updated_at = $2 WHERE id = $3',
  totals: 'SELECT COALESCE(SUM(star), 0) AS sum, COUNT(*) AS count FROM reviews WHERE node_id = $1',
  setRating: 'UPDATE nodes SET rating = $1 WHERE id = $2',
};

// The replies the service sends (its NodeDto, PublisherDto and NodeVersionDto, keys in the same
// order), so the baseline does the same JSON work; bench/run.js checks both answer the same body.
/** SQLite keeps 'YYYY-MM-DD HH:MM:SS.SSS' (UTC, no zone) text; pg gives a Date. */
const isoDate = (value) =>
  (value instanceof Date ? value : new Date(/(Z|[+-]\d\d:?\d\d)$/.test(value) ? value : `${value.replace(' ', 'T')}Z`)).toISOString();
const json = (text) => (text === null ? null : JSON.parse(text));
/** Replies leave out what has no value, as the service's omitAbsent does (CONTRACT §6); shallow, per object. */
const omitAbsent = (fields) => Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null && value !== undefined));

function compatibility(row, prefix = '') {
  return {
    supported_os: json(row[`${prefix}supported_os`]),
    supported_accelerators: json(row[`${prefix}supported_accelerators`]),
    supported_app_version: row[`${prefix}supported_app_version`],
    supported_app_frontend_version: row[`${prefix}supported_app_frontend_version`],
    tags: json(row[`${prefix}tags`]),
    tags_admin: json(row[`${prefix}tags_admin`]),
  };
}

/** As the service makes it: an archive's link on the request's origin, else the link an admin gave. */
function downloadUrlOf(row, prefix, origin) {
  const sha256 = row[`${prefix}archive_sha256`];
  return sha256 ? `${origin}/archives/${sha256}.zip` : row[`${prefix}download_url`];
}

function toVersion(row, origin, prefix = '') {
  return omitAbsent({
    id: row[`${prefix}id`],
    node_id: row[`${prefix}node_id`],
    version: row[`${prefix}version`],
    changelog: row[`${prefix}changelog`],
    dependencies: json(row[`${prefix}dependencies`]),
    deprecated: Boolean(row[`${prefix}deprecated`]),
    downloadUrl: downloadUrlOf(row, prefix, origin),
    status: row[`${prefix}status`],
    status_reason: row[`${prefix}status_reason`],
    app_node_extract_status: row[`${prefix}app_node_extract_status`],
    ...compatibility(row, prefix),
    createdAt: isoDate(row[`${prefix}created_at`]),
  });
}

function toNode(row, origin) {
  return omitAbsent({
    id: row.id,
    name: row.name,
    description: row.description,
    author: row.author,
    category: row.category,
    license: row.license,
    icon: row.icon,
    banner_url: row.banner_url,
    repository: row.repository,
    ...compatibility(row),
    preempted_app_node_names: json(row.preempted_app_node_names),
    translations: json(row.translations),
    status: row.status,
    status_detail: row.status_detail,
    search_ranking: row.search_ranking,
    downloads: row.downloads,
    github_stars: row.github_stars,
    rating: row.rating,
    created_at: isoDate(row.created_at),
    publisher: omitAbsent({
      id: row.p_id,
      name: row.p_name,
      description: row.p_description,
      website: row.p_website,
      support: row.p_support,
      source_code_repo: row.p_source_code_repo,
      logo: row.p_logo,
      status: row.p_status,
      createdAt: isoDate(row.p_created_at),
    }),
    latest_version: row.v_id === null ? undefined : toVersion(row, origin, 'v_'),
  });
}

/**
 * A review's upsert and the node's new rating, as the statements to run in
 * one transaction: each step yields [method, statement, ...args] and gets the
 * result back, so one description serves the synchronous and the async driver.
 */
function* reviewSteps(nodeId, userId, star, now) {
  const review = yield ['get', 'review', nodeId, userId];
  if (review) yield ['run', 'updateReview', star, now, review.id];
  else yield ['run', 'insertReview', randomUUID(), nodeId, userId, star, now, now];
  const { sum, count } = yield ['get', 'totals', nodeId];
  yield ['run', 'setRating', Number(sum) / Number(count), nodeId];
}

/** `get`, `run` and `review` over either driver; SQLite's statements are synchronous. */
function sqliteDatabase(path) {
  const Database = require('better-sqlite3');
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  registerFoldCase(db);
  const statements = Object.fromEntries(Object.entries(SQL).map(([name, sql]) => [name, db.prepare(sql.replace(/\$\d+/g, '?'))]));
  const queries = { get: (name, ...args) => statements[name].get(...args), run: (name, ...args) => statements[name].run(...args) };
  const review = db.transaction((...args) => {
    const steps = reviewSteps(...args);
    for (let step = steps.next(); !step.done; ) {
      const [method, ...call] = step.value;
      step = steps.next(queries[method](...call));
    }
  });
  // IMMEDIATE, as the service's transactions: a deferred one that read first fails at its first write
  // (SQLITE_BUSY, no busy wait) when another process wrote the file in between.
  return { ...queries, review: review.immediate };
}

function postgresDatabase(url) {
  const { Pool } = require('pg');
  const pool = new Pool({ connectionString: url, max: 10 });
  const on = (client) => ({
    get: async (name, ...args) => (await client.query({ name, text: SQL[name], values: args })).rows[0],
    run: (name, ...args) => client.query({ name, text: SQL[name], values: args }),
  });
  return {
    ...on(pool),
    review: async (nodeId, userId, star, now) => {
      const client = await pool.connect();
      const q = on(client);
      try {
        await client.query('BEGIN');
        await client.query('SELECT id FROM nodes WHERE id = $1 FOR UPDATE', [nodeId]);
        const steps = reviewSteps(nodeId, userId, star, now);
        for (let step = steps.next(); !step.done; ) {
          const [method, ...call] = step.value;
          step = steps.next(await q[method](...call));
        }
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      } finally {
        client.release();
      }
    },
  };
}

// The service's own database URL: sqlite:<path> or postgres://...
const url = process.env.BENCH_BASELINE_DATABASE_URL ?? '';
const db = url.startsWith('postgres') ? postgresDatabase(url) : sqliteDatabase(url.replace(/^sqlite:/, ''));

async function authenticate(req) {
  const match = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
  return match ? db.get('user', createHash('sha256').update(match[1]).digest('hex')) : undefined;
}

function send(res, status, body) {
  const text = JSON.stringify(body);
  // X-Request-Id: the contract puts one on every reply.
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), 'X-Request-Id': randomUUID() });
  res.end(text);
}

function readBody(req) {
  return new Promise((resolve) => {
    let text = '';
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => resolve(text ? JSON.parse(text) : {}));
  });
}

const originOf = (req) => `http://${req.headers.host}`;

const routes = [
  [/^PUT \/publishers\/([^/]+)\/nodes\/([^/]+)$/, async (req, res, [publisherId, nodeId], user) => {
    const body = await readBody(req);
    if (!(await db.get('member', publisherId, user.id))) return send(res, 403, {});
    const node = await db.get('node', nodeId.toLowerCase());
    await db.run('updateNode', body.description, new Date().toISOString(), node.id);
    send(res, 200, toNode(await db.get('nodeFull', node.normalized_id), originOf(req)));
  }],
  [/^PUT \/publishers\/([^/]+)\/nodes\/([^/]+)\/versions\/([^/]+)$/, async (req, res, [publisherId, nodeId, versionId], user) => {
    const body = await readBody(req);
    if (!(await db.get('member', publisherId, user.id))) return send(res, 403, {});
    const node = await db.get('node', nodeId.toLowerCase());
    const version = await db.get('version', node.id, versionId, versionId);
    await db.run('updateVersion', body.changelog, version.id);
    send(res, 200, toVersion(await db.get('versionById', version.id), originOf(req)));
  }],
  [/^POST \/nodes\/([^/]+)\/reviews\?star=(\d)$/, async (req, res, [nodeId, star], user) => {
    req.resume();
    const node = await db.get('node', nodeId.toLowerCase());
    const now = new Date().toISOString();
    await db.review(node.id, user.id, Number(star), now);
    send(res, 200, toNode(await db.get('nodeFull', node.normalized_id), originOf(req)));
  }],
  [/^GET \/nodes\/([^/]+)$/, async (req, res, [nodeId]) => {
    send(res, 200, toNode(await db.get('nodeFull', nodeId.toLowerCase()), originOf(req)));
  }],
];

const server = createServer((req, res) => {
  const line = `${req.method} ${req.url}`;
  for (const [pattern, handle] of routes) {
    const match = pattern.exec(line);
    if (!match) continue;
    (async () => {
      const user = req.method === 'GET' ? undefined : await authenticate(req);
      if (req.method !== 'GET' && !user) return send(res, 401, {});
      return handle(req, res, match.slice(1), user);
    })().catch(() => send(res, 500, {}));
    return;
  }
  send(res, 404, {});
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send?.({ port: server.address().port }));
process.on('disconnect', () => server.close(() => process.exit(0)));
