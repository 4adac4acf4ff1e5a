// The practical limit of Node on this machine: plain node:http and the same
// database driver (better-sqlite3) doing the same work per route as the
// service — token lookup, membership check, the update, the read-back, JSON.
const { createServer } = require('node:http');
const { createHash } = require('node:crypto');
const Database = require('better-sqlite3');

const db = new Database(process.env.BENCH_SQLITE_PATH);
db.pragma('journal_mode = WAL');
db.pragma('foreign_keys = ON');

const q = {
  user: db.prepare(
    'SELECT u.id, u.is_admin FROM users u JOIN access_tokens t ON t.user_id = u.id WHERE t.token_hash = ? AND t.revoked_at IS NULL',
  ),
  member: db.prepare('SELECT role FROM publisher_members WHERE publisher_id = ? AND user_id = ?'),
  node: db.prepare('SELECT * FROM nodes WHERE normalized_id = ?'),
  nodeFull: db.prepare(
    `SELECT n.*, p.name AS p_name, p.created_at AS p_created_at, v.version AS v_version, v.id AS v_id
     FROM nodes n JOIN publishers p ON p.id = n.publisher_id LEFT JOIN node_versions v ON v.id = n.latest_version_id
     WHERE n.normalized_id = ?`,
  ),
  updateNode: db.prepare('UPDATE nodes SET description = ?, updated_at = ? WHERE id = ?'),
  version: db.prepare('SELECT * FROM node_versions WHERE node_id = ? AND (id = ? OR version = ?)'),
  updateVersion: db.prepare('UPDATE node_versions SET changelog = ? WHERE id = ?'),
  versionById: db.prepare('SELECT * FROM node_versions WHERE id = ?'),
  review: db.prepare('SELECT id FROM reviews WHERE node_id = ? AND user_id = ?'),
  insertReview: db.prepare('INSERT INTO reviews (id, node_id, user_id, star, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)'),
  updateReview: db.prepare('UPDATE reviews SET star = ?, updated_at = ? WHERE id = ?'),
  totals: db.prepare('SELECT COALESCE(SUM(star), 0) AS sum, COUNT(*) AS count FROM reviews WHERE node_id = ?'),
  setRating: db.prepare('UPDATE nodes SET rating = ? WHERE id = ?'),
};

function authenticate(req) {
  const match = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
  return match ? q.user.get(createHash('sha256').update(match[1]).digest('hex')) : undefined;
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
    if (!q.member.get(publisherId, user.id)) return send(res, 403, {});
    const node = q.node.get(nodeId.toLowerCase());
    q.updateNode.run(body.description, new Date().toISOString(), node.id);
    send(res, 200, q.nodeFull.get(node.normalized_id));
  }],
  [/^PUT \/publishers\/([^/]+)\/nodes\/([^/]+)\/versions\/([^/]+)$/, async (req, res, [publisherId, nodeId, versionId], user) => {
    const body = await readBody(req);
    if (!q.member.get(publisherId, user.id)) return send(res, 403, {});
    const node = q.node.get(nodeId.toLowerCase());
    const version = q.version.get(node.id, versionId, versionId);
    q.updateVersion.run(body.changelog, version.id);
    send(res, 200, q.versionById.get(version.id));
  }],
  [/^POST \/nodes\/([^/]+)\/reviews\?star=(\d)$/, async (req, res, [nodeId, star], user) => {
    req.resume();
    const node = q.node.get(nodeId.toLowerCase());
    const now = new Date().toISOString();
    db.transaction(() => {
      const review = q.review.get(node.id, user.id);
      if (review) q.updateReview.run(Number(star), now, review.id);
      else q.insertReview.run(`${user.id}-${node.id}`, node.id, user.id, Number(star), now, now);
      const { sum, count } = q.totals.get(node.id);
      q.setRating.run(sum / count, node.id);
    })();
    send(res, 200, q.nodeFull.get(node.normalized_id));
  }],
  [/^GET \/nodes\/([^/]+)$/, async (req, res, [nodeId]) => {
    send(res, 200, q.nodeFull.get(nodeId.toLowerCase()));
  }],
];

const server = createServer((req, res) => {
  const line = `${req.method} ${req.url}`;
  for (const [pattern, handle] of routes) {
    const match = pattern.exec(line);
    if (!match) continue;
    const user = req.method === 'GET' ? undefined : authenticate(req);
    if (req.method !== 'GET' && !user) return send(res, 401, {});
    return void handle(req, res, match.slice(1), user).catch(() => send(res, 500, {}));
  }
  send(res, 404, {});
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send?.({ port: server.address().port }));
process.on('disconnect', () => server.close(() => process.exit(0)));
