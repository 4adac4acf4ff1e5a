// The practical limit of Node on this machine: plain node:http and the same
// database driver as the service (better-sqlite3, or pg for a PostgreSQL
// run) doing the same work per route as the
// service — token lookup, membership check, the update, the read-back, JSON.
const { createServer } = require('node:http');
const { createHash, randomUUID } = require('node:crypto');

const SQL = {
  user: 'SELECT u.id, u.is_admin FROM users u JOIN access_tokens t ON t.user_id = u.id WHERE t.token_hash = $1 AND t.revoked_at IS NULL',
  member: 'SELECT role FROM publisher_members WHERE publisher_id = $1 AND user_id = $2',
  node: 'SELECT * FROM nodes WHERE normalized_id = $1',
  nodeFull: `SELECT n.*, p.name AS p_name, p.created_at AS p_created_at, v.version AS v_version, v.id AS v_id
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
  const statements = Object.fromEntries(Object.entries(SQL).map(([name, sql]) => [name, db.prepare(sql.replace(/\$\d+/g, '?'))]));
  const queries = { get: (name, ...args) => statements[name].get(...args), run: (name, ...args) => statements[name].run(...args) };
  const review = db.transaction((...args) => {
    const steps = reviewSteps(...args);
    for (let step = steps.next(); !step.done; ) {
      const [method, ...call] = step.value;
      step = steps.next(queries[method](...call));
    }
  });
  return { ...queries, review };
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
  const json = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(json) });
  res.end(json);
}

function readBody(req) {
  return new Promise((resolve) => {
    let text = '';
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => resolve(text ? JSON.parse(text) : {}));
  });
}

const routes = [
  [/^PUT \/publishers\/([^/]+)\/nodes\/([^/]+)$/, async (req, res, [publisherId, nodeId], user) => {
    const body = await readBody(req);
    if (!(await db.get('member', publisherId, user.id))) return send(res, 403, {});
    const node = await db.get('node', nodeId.toLowerCase());
    await db.run('updateNode', body.description, new Date().toISOString(), node.id);
    send(res, 200, await db.get('nodeFull', node.normalized_id));
  }],
  [/^PUT \/publishers\/([^/]+)\/nodes\/([^/]+)\/versions\/([^/]+)$/, async (req, res, [publisherId, nodeId, versionId], user) => {
    const body = await readBody(req);
    if (!(await db.get('member', publisherId, user.id))) return send(res, 403, {});
    const node = await db.get('node', nodeId.toLowerCase());
    const version = await db.get('version', node.id, versionId, versionId);
    await db.run('updateVersion', body.changelog, version.id);
    send(res, 200, await db.get('versionById', version.id));
  }],
  [/^POST \/nodes\/([^/]+)\/reviews\?star=(\d)$/, async (req, res, [nodeId, star], user) => {
    req.resume();
    const node = await db.get('node', nodeId.toLowerCase());
    const now = new Date().toISOString();
    await db.review(node.id, user.id, Number(star), now);
    send(res, 200, await db.get('nodeFull', node.normalized_id));
  }],
  [/^GET \/nodes\/([^/]+)$/, async (req, res, [nodeId]) => {
    send(res, 200, await db.get('nodeFull', nodeId.toLowerCase()));
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
