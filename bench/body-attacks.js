// The benchmark's body-attacks section (`npm run bench [-- --smoke] [-- --only attacks]`): what refusing a hostile
// JSON body costs the service. The bodies are the issue's: {"prompt":[[],[],…]} with 4,000,000 empty arrays sent as
// they are (12 MB), and with 10,000,000 gzip-compressed (30 MB inflated, about 30 KB on the wire), each with a seeded
// user's token (413: the route allows 100 elements an array) and without one (401, before the body is read), to
// POST /proxy/video/reference2video, the route with the largest byte limit (48 MiB).
//
// Measured: the time to refuse each body alone, one request at a time, each on a connection of
// its own; then eight of it in flight at once for a few seconds (another sent on the same connection as soon as one
// is answered and sent whole), while /health/ready is probed one request at a time over its own connection and the
// service's RSS is sampled; and just before, the probes alone for as long: the idle figures of the same minute, and
// the memory the probes take, so that the extra memory is the attack's (its peak over theirs). The issue's targets:
// each body refused within 200 ms, at most 64 MiB of extra memory, /health/ready p50 within 2× its idle p50 under
// the attack. A missed target is reported, not a failure; a
// status other than the expected one is (a broken route, or a reply lost to a reset).
const { once } = require('node:events');
const { setTimeout: sleep } = require('node:timers/promises');
const { Agent, request } = require('node:http');
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { Worker, isMainThread, parentPort } = require('node:worker_threads');
const { gzipSync } = require('node:zlib');
const { cli, commitOf, percentile, round, rssMb, startService, stopService } = require('./lib');

const PATH = '/proxy/video/reference2video';
const IN_FLIGHT = 8;
const TARGETS = { refusalMs: 200, extraMemoryMb: 64, healthOverIdle: 2 };
const RSS_SAMPLE_MS = 20;

const msSince = (started) => Number(process.hrtime.bigint() - started) / 1e6;

/**
 * One request: its status (or the error's code) and the ms from its first byte sent to its reply's last byte. It
 * resolves once the body is sent whole too (the service may answer first): a client sending whole bodies only then
 * sends its next one on the connection.
 */
function timed(url, { agent, method = 'GET', headers = {}, body }) {
  return new Promise((resolve) => {
    let reply;
    let sent = false;
    const settle = () => reply && sent && resolve(reply);
    const started = process.hrtime.bigint();
    const req = request(url, { method, agent, headers: body ? { ...headers, 'Content-Length': body.length } : headers }, (res) => {
      res.resume();
      res.on('end', () => {
        reply = { status: res.statusCode, ms: msSince(started) };
        settle();
      });
    });
    req.on('finish', () => {
      sent = true;
      settle();
    });
    // The service may close the connection on the rest of a refused body: its reply, when it came, is what counts.
    req.on('error', (error) => resolve(reply ?? { status: error.code ?? error.message, ms: msSince(started) }));
    req.end(body);
  });
}

// The attack's requests are sent from a worker thread, so writing their bodies does not delay the main thread's
// /health/ready probes (their latencies are the service's, not the bench's event loop's).
// `fresh`: each request on a new connection (still keep-alive: a client asking for Connection: close has Node close the
// connection as soon as the reply is written). On a reused one, a request waits until the service has drained what
// is left of the previous refused body, at its bounded rate (docs/request-bodies.md): that is not the refusal's time.
if (!isMainThread) {
  parentPort.on('message', async ({ url, body, headers, inFlight, requests, forMs, fresh }) => {
    const shared = new Agent({ keepAlive: true, maxSockets: inFlight });
    const deadline = Date.now() + forMs;
    let left = requests;
    const replies = [];
    const send = async () => {
      const agent = fresh ? new Agent({ keepAlive: true, maxSockets: 1 }) : shared;
      replies.push(await timed(url, { agent, method: 'POST', headers, body }));
      if (fresh) agent.destroy();
    };
    const sender = async () => {
      for (; left > 0 && Date.now() < deadline; left -= 1) await send();
    };
    await Promise.all(Array.from({ length: inFlight }, sender));
    shared.destroy();
    parentPort.postMessage(replies);
  });
}

/** `inFlight` senders of one body, until `requests` are sent or `forMs` has passed (in the worker); the replies. */
async function attack(worker, options) {
  worker.postMessage({ requests: Infinity, forMs: Infinity, ...options });
  const [replies] = await once(worker, 'message');
  return replies;
}

/** `{"prompt":[[],[],…]}` with `n` empty arrays. */
const emptyArrays = (n) => Buffer.from(`{"prompt":[${'[],'.repeat(n - 1)}[]]}`);

/**
 * The issue's four bodies, then a reference that is no attack: a small body without a token, eight in flight as
 * well. The health target compares with idle, so the reference shows what eight requests in flight cost
 * /health/ready whatever their bodies (reported, not judged).
 */
function cases(token) {
  const json = { 'Content-Type': 'application/json' };
  const plain = emptyArrays(4_000_000);
  const inflated = emptyArrays(10_000_000);
  const gzip = { wire: gzipSync(inflated, { level: 9 }), inflatedBytes: inflated.length, headers: { ...json, 'Content-Encoding': 'gzip' } };
  const issue = [
    { body: 'uncompressed: 4M empty arrays', wire: plain, inflatedBytes: plain.length, headers: json },
    { body: 'gzip: 10M empty arrays', ...gzip },
  ].flatMap((body) => [
    { ...body, case: `${body.body}, with a token`, headers: { ...body.headers, Authorization: `Bearer ${token}` }, expectedStatus: 413 },
    { ...body, case: `${body.body}, no token`, expectedStatus: 401 },
  ]);
  const small = Buffer.from('{"prompt":"x"}');
  return [...issue, { case: 'reference: a 14-byte body, no token', wire: small, inflatedBytes: small.length, headers: json, expectedStatus: 401, reference: true }];
}

/** Count, p50, p99 and max of replies' times; the statuses seen, counted. */
function stats(replies) {
  const sorted = replies.map((r) => r.ms).sort((a, b) => a - b);
  const statuses = {};
  for (const { status } of replies) statuses[status] = (statuses[status] ?? 0) + 1;
  return { requests: sorted.length, p50Ms: round(percentile(sorted, 0.5)), p99Ms: round(percentile(sorted, 0.99)), maxMs: round(sorted.at(-1)), statuses };
}

/**
 * /health/ready probed one request at a time until `until` settles, while the service's RSS is sampled:
 * the probes' replies and the peak RSS. A peak, not a reading: RSS swings with GC under any traffic.
 */
async function probeWhile(until, probe, pid) {
  let settled = false;
  void until.finally(() => (settled = true));
  let peakMb = rssMb(pid);
  const sampler = setInterval(() => (peakMb = Math.max(peakMb, rssMb(pid))), RSS_SAMPLE_MS);
  const replies = [];
  while (!settled) replies.push(await probe());
  clearInterval(sampler);
  return { replies, peakMb };
}

/** The section: returns what goes under `bodyAttacks` in the results file. */
async function runBodyAttacks({ smoke }) {
  const plan = smoke ? { warmUp: 50, alone: 3, attackMs: 1000 } : { warmUp: 2000, alone: 10, attackMs: 5000 };
  const dir = mkdtempSync(join(tmpdir(), 'registry-attacks-bench-'));
  const databaseUrl = `sqlite:${join(dir, 'attacks.db')}`;
  const service = await startService(databaseUrl, undefined);
  const worker = new Worker(module.filename);
  const health = new Agent({ keepAlive: true, maxSockets: 1 });
  const probe = () => timed(`${service.url}/health/ready`, { agent: health });
  try {
    // A user with no credits: the 413 comes before any balance check.
    const user = cli(databaseUrl, 'user', 'create', '--email', `attacks-${Date.now()}@example.com`, '--name', 'Attacks');
    const { token } = cli(databaseUrl, 'token', 'create', '--user', user.id);

    // Unmeasured, so the probes are compiled before any figure is taken.
    for (let i = 0; i < plan.warmUp; i += 1) await probe();

    const measured = [];
    for (const { case: name, wire, inflatedBytes, headers, expectedStatus, reference } of cases(token)) {
      const send = { url: `${service.url}${PATH}`, body: wire, headers };
      // One unmeasured request first, so the figures do not include the JIT compiling the refusal.
      await attack(worker, { ...send, inFlight: 1, requests: 1, fresh: true });
      const alone = stats(await attack(worker, { ...send, inFlight: 1, requests: plan.alone, fresh: true }));

      // The probes alone first, as long as the attack: the idle figures in the same minute, and the memory the
      // probes take, over which the attack's is counted.
      const probedAlone = await probeWhile(sleep(plan.attackMs), probe, service.child.pid);
      const idle = stats(probedAlone.replies);
      const floodStarted = process.hrtime.bigint();
      const flood = attack(worker, { ...send, inFlight: IN_FLIGHT, forMs: plan.attackMs });
      const attacked = await probeWhile(flood, probe, service.child.pid);
      const underAttack = stats(await flood);
      const floodSeconds = msSince(floodStarted) / 1000;
      const healthReady = stats(attacked.replies);
      measured.push({
        case: name,
        reference,
        wireBytes: wire.length,
        inflatedBytes,
        expectedStatus,
        alone,
        underAttack: {
          ...underAttack,
          healthReady,
          healthIdle: idle,
          healthOverIdle: round(healthReady.p50Ms / idle.p50Ms),
          rssProbedAloneMb: round(probedAlone.peakMb, 1),
          rssPeakMb: round(attacked.peakMb, 1),
          extraMemoryMb: round(attacked.peakMb - probedAlone.peakMb, 1),
          // What the attack's clients sent, and so what the service read: bodies refused, and their rest drained.
          bodyMbPerSecond: round((underAttack.requests * wire.length) / 1e6 / floodSeconds, 1),
        },
      });
    }

    const result = { when: new Date().toISOString(), commit: commitOf(), smoke, route: PATH, inFlight: IN_FLIGHT, attackSeconds: plan.attackMs / 1000, cases: measured };
    result.targets = judge(result);
    result.unexpectedStatuses = unexpected(result);
    print(result);
    return result;
  } finally {
    await worker.terminate();
    health.destroy();
    await stopService(service);
    rmSync(dir, { recursive: true, force: true });
  }
}

function judge({ cases }) {
  return cases.filter((c) => !c.reference).flatMap(({ case: name, alone, underAttack: a }) => [
    { case: name, target: `refused within ${TARGETS.refusalMs} ms (alone, p50 / max)`, value: `${alone.p50Ms} / ${alone.maxMs} ms`, met: alone.maxMs <= TARGETS.refusalMs },
    { case: name, target: `at most ${TARGETS.extraMemoryMb} MiB of extra memory (${IN_FLIGHT} in flight)`, value: `${a.extraMemoryMb} MiB`, met: a.extraMemoryMb <= TARGETS.extraMemoryMb },
    {
      case: name,
      target: `/health/ready p50 within ${TARGETS.healthOverIdle}× idle (${IN_FLIGHT} in flight)`,
      value: `${a.healthReady.p50Ms} ms, idle ${a.healthIdle.p50Ms} ms: ${a.healthOverIdle}×`,
      met: a.healthOverIdle <= TARGETS.healthOverIdle,
    },
  ]);
}

/** Every reply whose status is not the one expected: the idle and attacked health probes' (200) and each case's. */
function unexpected({ cases }) {
  const others = (name, { statuses }, expected) =>
    Object.entries(statuses)
      .filter(([status]) => status !== String(expected))
      .map(([status, count]) => `${name}: ${count} × ${status} (expected ${expected})`);
  return [
    ...cases.flatMap((c) => [
      ...others(`/health/ready before ${c.case}`, c.underAttack.healthIdle, 200),
      ...others(`${c.case}, alone`, c.alone, c.expectedStatus),
      ...others(`${c.case}, ${IN_FLIGHT} in flight`, c.underAttack, c.expectedStatus),
      ...others(`/health/ready under ${c.case}`, c.underAttack.healthReady, 200),
    ]),
  ];
}

function print({ cases, targets, unexpectedStatuses, attackSeconds }) {
  console.log(`\nbody attacks on POST ${PATH} (ms; ${IN_FLIGHT} in flight for ${attackSeconds} s; /health/ready idle: probed alone for as long just before):`);
  const header = ['case', 'wire bytes', 'status', 'alone p50', 'alone max', 'attacked p50', 'attacked max', 'refused', 'probes', 'idle p50', 'health p50', '× idle', 'body MB/s', 'RSS probed', 'extra MiB'];
  const lines = cases.map(({ case: name, wireBytes, alone, underAttack: a }) =>
    [name, wireBytes, Object.keys(a.statuses).join(','), alone.p50Ms, alone.maxMs, a.p50Ms, a.maxMs, a.requests, a.healthReady.requests, a.healthIdle.p50Ms, a.healthReady.p50Ms, a.healthOverIdle, a.bodyMbPerSecond, a.rssProbedAloneMb, a.extraMemoryMb].map(String),
  );
  const widths = header.map((title, i) => Math.max(title.length, ...lines.map((cells) => cells[i].length)) + 2);
  for (const cells of [header, ...lines]) console.log(cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join(''));
  for (const t of targets) console.log(`  [${t.met ? 'met' : 'NOT MET'}] ${t.case}: ${t.target}: ${t.value}`);
  const missed = targets.filter((t) => !t.met).length;
  console.log(`body attacks: ${targets.length - missed} of ${targets.length} targets met (a missed target is reported, not a failure)`);
  for (const line of unexpectedStatuses) console.error(`  unexpected status: ${line}`);
}

module.exports = { runBodyAttacks };
