#!/usr/bin/env node
// `npm run bench [-- --smoke]`: measures the service against the practical
// limit of Node on this machine and writes bench/results.json.
//   - the service (Nest over Express) on SQLite, and on PostgreSQL when BENCH_DATABASE_URL is set;
//   - beside it, bench/baseline-server.js: node:http + the same database driver doing the same work;
//   - the video route in front of a fake upstream with a fixed delay, beside requests sent straight to it;
//   - 2,000 concurrent video creates against an upstream that answers after 2 s;
//   - cold start to a ready /health/ready;
//   - calibration: a trivial route on node:http, Express and Nest over Express, and the video route's floor:
//     forwarders doing nothing else on node:http and on Nest over Express with @nestjs/axios
//     (bench/calibration-server.js).
//   - the catalog (bench/catalog.js): reads of GET /nodes and /nodes/{id} at two catalog sizes, seeded in bulk.
//   - body attacks (bench/body-attacks.js): what refusing hostile JSON bodies costs, and /health/ready meanwhile.
//   - node-class extraction (bench/extraction.js): a 5 MiB pack's extraction, and whether it delays its upload's reply.
//   - archive checks (bench/archive-checks.js): a 100 MiB pack's checks (memory, other requests' latency) and zip bombs.
//   - metrics (bench/metrics.js): write throughput and a catalog page's p50 with GET /metrics on against off.
//   - kept video results (bench/video-results.js): storing a 500 MiB result (memory, other requests' p50), a Range read of its last MiB.
// --smoke runs every step for a couple of seconds so CI keeps the script working; --only catalog (or attacks, extraction, checks, metrics, results) runs
// that section alone; --only registry runs the registry routes against the baseline alone (no video, bursts or
// calibration).
const autocannon = require('autocannon');
const { execFileSync } = require('node:child_process');
const { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir, cpus } = require('node:os');
const { join } = require('node:path');
const { runBodyAttacks } = require('./body-attacks');
const { runCatalog } = require('./catalog');
const { runExtraction } = require('./extraction');
const { runResults } = require('./video-results');
const { runArchiveChecks } = require('./archive-checks');
const { runMetrics } = require('./metrics');
const { Client } = require('pg');
const { ROOT, wait, cpuSeconds, peakRssMb, startHelper, cli, startService } = require('./lib');

const SMOKE = process.argv.includes('--smoke');
// `--only catalog` (or attacks, extraction, checks, metrics, results) runs that section alone, and keeps the other sections' figures already in the results file.
const SECTIONS = ['catalog', 'attacks', 'extraction', 'checks', 'registry', 'metrics', 'results'];
const ONLY = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
if (ONLY !== undefined && !SECTIONS.includes(ONLY)) {
  console.error(`--only takes one of: ${SECTIONS.join(', ')}`);
  process.exit(2);
}
const DURATION_S = SMOKE ? 2 : Number(process.env.BENCH_DURATION_S ?? 10);
const CONNECTIONS = 32;
const BURST = SMOKE ? 200 : 2000;
const WARM_UP_S = SMOKE ? 1 : 2;
// Service and reference are measured in alternating rounds, so both see the same machine (a shared VM here).
const ROUNDS = SMOKE ? 1 : 3;
// The video route's upstream answers after UPSTREAM_DELAY_MS: at 32 connections about 1,500 creates/s, more than
// one core of the service can take, so the p50 it adds there is mostly queueing. MODERATE_UPSTREAM_DELAY_MS
// gives the same connections at most 160 creates/s, where the service's CPU is not the limit.
const UPSTREAM_DELAY_MS = 20;
const MODERATE_UPSTREAM_DELAY_MS = 200;
const SETTLE_MS = 250;
const RESULTS = process.env.BENCH_RESULTS ?? join(__dirname, SMOKE ? 'results.smoke.json' : 'results.json');

async function http(method, url, token, body) {
  const response = await fetch(url, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** An admin, a publisher with one node and two versions, and credits for the video runs. */
async function seed(databaseUrl, serviceUrl) {
  const admin = cli(databaseUrl, 'user', 'create', '--email', `bench-${Date.now()}@example.com`, '--name', 'Bench', '--admin');
  const { token } = cli(databaseUrl, 'token', 'create', '--user', admin.id);
  cli(databaseUrl, 'credits', 'grant', '--user', admin.id, '--amount', '1000000000');
  const suffix = Date.now().toString(36);
  const publisher = `bench-${suffix}`;
  const node = `bench-node-${suffix}`;
  await http('POST', `${serviceUrl}/publishers`, token, { id: publisher, name: 'Bench' });
  await http('POST', `${serviceUrl}/publishers/${publisher}/nodes`, token, { id: node, name: 'Bench node', description: 'x' });
  for (const version of ['1.9.0', '1.10.0']) {
    await http('POST', `${serviceUrl}/publishers/${publisher}/nodes/${node}/versions`, token, { version });
  }
  return { token, publisher, node };
}

function load(url, options) {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: CONNECTIONS, duration: DURATION_S, ...options }, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

function summary(result) {
  const ok = result['2xx'];
  return {
    requestsPerSecond: Math.round(ok / (result.duration || DURATION_S)),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    meanMs: result.latency.mean,
    non2xx: result.non2xx + result.errors + result.timeouts,
    // What the failures were, so a failed run can be explained.
    ...(result.non2xx + result.errors + result.timeouts > 0 && {
      failures: { statusCodes: Object.keys(result.statusCodeStats).filter((code) => !code.startsWith('2')), errors: result.errors, timeouts: result.timeouts },
    }),
  };
}

/** One load of DURATION_S / ROUNDS on a process (after its `beforeLoad`, if any), with the CPU it spent per request. */
async function measure(target, path, options) {
  await target.beforeLoad?.();
  const cpuBefore = cpuSeconds(target.pid);
  const result = await load(`${target.url}${path}`, { ...options, duration: Math.max(1, DURATION_S / ROUNDS) });
  // autocannon stops with requests in flight, which the process still finishes: let it, so its writes
  // (to the same SQLite file as the next load's process) overlap no other load, and its CPU counts here.
  await wait(SETTLE_MS);
  const cpu = cpuSeconds(target.pid) - cpuBefore;
  return { ...summary(result), cpuMsPerRequest: result.requests.total ? +((cpu * 1000) / result.requests.total).toFixed(2) : undefined };
}

/**
 * The service against its reference in ROUNDS alternating rounds; the round
 * with the median ratio is reported, with the range of the ratios.
 */
async function compare(service, reference, servicePath, referencePath, options, referenceOptions = options) {
  const rounds = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const measured = await measure(service, servicePath, options);
    const limit = await measure(reference, referencePath, referenceOptions);
    rounds.push({ service: measured, baseline: limit, ratio: measured.requestsPerSecond / limit.requestsPerSecond });
  }
  rounds.sort((a, b) => a.ratio - b.ratio);
  const median = rounds[Math.floor(rounds.length / 2)];
  return {
    service: median.service,
    baseline: median.baseline,
    ratio: +median.ratio.toFixed(2),
    ratioRange: [+rounds[0].ratio.toFixed(2), +rounds[rounds.length - 1].ratio.toFixed(2)],
  };
}

function registryRoutes(fixture) {
  const auth = { Authorization: `Bearer ${fixture.token}`, 'Content-Type': 'application/json' };
  const base = `/publishers/${fixture.publisher}/nodes/${fixture.node}`;
  return [
    { name: 'PUT node', method: 'PUT', path: base, headers: auth, body: JSON.stringify({ description: 'benchmarked' }) },
    { name: 'PUT version', method: 'PUT', path: `${base}/versions/1.10.0`, headers: auth, body: JSON.stringify({ changelog: 'benchmarked' }) },
    { name: 'POST review', method: 'POST', path: `/nodes/${fixture.node}/reviews?star=4`, headers: auth },
    { name: 'GET node', method: 'GET', path: `/nodes/${fixture.node}` },
  ];
}

/** The baseline must answer each route with the service's own reply body, or the ratios compare different work. */
async function assertSameReplies(routes, serviceUrl, baselineUrl) {
  for (const route of routes) {
    const replies = [];
    for (const url of [serviceUrl, baselineUrl]) {
      const response = await fetch(`${url}${route.path}`, { method: route.method, headers: route.headers, body: route.body });
      replies.push(`${response.status} ${await response.text()}`);
    }
    if (replies[0] !== replies[1]) {
      throw new Error(`${route.name}: the baseline's reply differs from the service's\n  service:  ${replies[0]}\n  baseline: ${replies[1]}`);
    }
  }
}

const VIDEO_PATH = '/proxy/video/reference2video';

/** Unmeasured load first, so no figure includes the JIT compiling the route. */
function warmUpVideo(target, headers) {
  return load(`${target.url}${VIDEO_PATH}`, { ...videoRequest(headers).via, duration: WARM_UP_S });
}

/** A create request through `headers`' owner, and the same body as sent straight to the upstream. */
function videoRequest(headers, upstreamDelayMs) {
  // Without a delay named, the upstream's own (UPSTREAM_DELAY_MS).
  const fields = { model: 'videoq2-turbo', duration: 2, prompt: 'benchmark' };
  const body = JSON.stringify(upstreamDelayMs === undefined ? fields : { ...fields, meta_data: JSON.stringify({ bench_delay_ms: upstreamDelayMs }) });
  return {
    via: { method: 'POST', headers, body },
    direct: { method: 'POST', headers: { Authorization: 'Token bench-key', 'Content-Type': 'application/json' }, body },
  };
}

/**
 * What `target`'s video route adds to the upstream's own latency: at 32 connections (where the 20 ms
 * upstream saturates the service's CPU), at 32 connections against the 200 ms upstream, and one
 * request at a time (no queueing), each beside the same requests sent straight to the upstream.
 */
async function measureVideo(target, upstream, headers) {
  const directPath = '/ent/v2/reference2video';
  const fast = videoRequest(headers);
  const saturated = await compare(target, upstream, VIDEO_PATH, directPath, fast.via, fast.direct);
  const slower = videoRequest(headers, MODERATE_UPSTREAM_DELAY_MS);
  const atModerateLoad = await compare(target, upstream, VIDEO_PATH, directPath, slower.via, slower.direct);
  const alone = await measure(target, VIDEO_PATH, { ...fast.via, connections: 1 });
  const aloneDirect = await measure(upstream, directPath, { ...fast.direct, connections: 1 });
  return {
    ...saturated,
    addedP50Ms: +(saturated.service.p50Ms - saturated.baseline.p50Ms).toFixed(2),
    addedMeanMs: +(saturated.service.meanMs - saturated.baseline.meanMs).toFixed(2),
    oneConnection: { service: alone, upstream: aloneDirect, addedMeanMs: +(alone.meanMs - aloneDirect.meanMs).toFixed(2) },
    moderateLoad: {
      upstreamDelayMs: MODERATE_UPSTREAM_DELAY_MS,
      service: atModerateLoad.service,
      upstream: atModerateLoad.baseline,
      addedP50Ms: atModerateLoad.service.p50Ms - atModerateLoad.baseline.p50Ms,
      addedMeanMs: +(atModerateLoad.service.meanMs - atModerateLoad.baseline.meanMs).toFixed(2),
    },
  };
}

async function benchDatabase(label, databaseUrl, upstream, { video = true } = {}) {
  const service = await startService(databaseUrl, upstream.url);
  const fixture = await seed(databaseUrl, service.url);
  const baseline = await startHelper('baseline-server.js', { BENCH_BASELINE_DATABASE_URL: databaseUrl });
  const target = { url: service.url, pid: service.child.pid };
  await assertSameReplies(registryRoutes(fixture), service.url, baseline.url);
  // Unmeasured load first, so no route's figures include the JIT compiling the code they share.
  for (const route of registryRoutes(fixture)) {
    const options = { method: route.method, headers: route.headers, body: route.body, duration: WARM_UP_S };
    await load(`${target.url}${route.path}`, options);
    await load(`${baseline.url}${route.path}`, options);
  }
  const videoHeaders = { Authorization: `Bearer ${fixture.token}`, 'Content-Type': 'application/json' };
  if (video) await warmUpVideo(target, videoHeaders);
  const rows = [];
  for (const route of registryRoutes(fixture)) {
    const options = { method: route.method, headers: route.headers, body: route.body };
    // Each load of a write starts from the same table: PostgreSQL's autovacuum may be off (it is on this machine),
    // and the dead row versions of the benchmarked row pile up (73,000 after a few rounds), slowing both servers'
    // later rounds unevenly.
    const beforeLoad = route.method !== 'GET' && databaseUrl.startsWith('postgres') ? () => vacuum(databaseUrl) : undefined;
    const reference = { url: baseline.url, pid: baseline.child.pid, beforeLoad };
    rows.push({ database: label, route: route.name, ...(await compare({ ...target, beforeLoad }, reference, route.path, route.path, options)) });
  }
  if (video) rows.push({ database: label, route: 'POST reference2video', ...(await measureVideo(target, upstream, videoHeaders)) });
  baseline.child.disconnect();
  const peak = peakRssMb(service.child.pid);
  service.child.kill('SIGTERM');
  return { label, rows, coldStartMs: service.coldStartMs, peakRssMb: peak, fixture };
}

/** VACUUM of the tables the benchmarked writes touch. */
async function vacuum(databaseUrl) {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('VACUUM "nodes", "node_versions", "reviews"');
  } finally {
    await client.end();
  }
}

/** The framework alone: a trivial JSON route on node:http, Express and Nest over Express. */
async function calibration() {
  const rows = [];
  for (const kind of ['node:http', 'express', 'nest-express']) {
    const server = await startHelper('calibration-server.js', { BENCH_CALIBRATION: kind });
    rows.push({ server: kind, ...summary(await load(`${server.url}/`, {})) });
    server.child.disconnect();
  }
  for (const row of rows) row.ratio = +(row.requestsPerSecond / rows[0].requestsPerSecond).toFixed(2);
  return rows;
}

/**
 * The video route's floor: forwarders that do nothing but pass the create on (bench/calibration-server.js),
 * on node:http and on the service's own stack, measured exactly as the service's route is.
 */
async function videoFloor(upstream) {
  const rows = [];
  for (const kind of ['node:http forwarder', 'nest-express forwarder']) {
    const server = await startHelper('calibration-server.js', { BENCH_CALIBRATION: kind, BENCH_UPSTREAM_URL: upstream.url });
    const target = { url: server.url, pid: server.child.pid };
    const headers = { 'Content-Type': 'application/json' };
    await warmUpVideo(target, headers);
    rows.push({ floor: kind, route: 'POST reference2video', ...(await measureVideo(target, upstream, headers)) });
    server.child.disconnect();
  }
  return rows;
}

/** BURST concurrent creates against an upstream that answers after 2 s: all must succeed. */
async function burst(databaseUrl) {
  const slow = await startHelper('fake-upstream.js', { BENCH_UPSTREAM_DELAY_MS: '2000' });
  const service = await startService(databaseUrl, slow.url);
  const fixture = await seed(databaseUrl, service.url);
  const errorCodes = {};
  const result = await new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${service.url}/proxy/video/reference2video`,
        method: 'POST',
        connections: BURST,
        amount: BURST,
        timeout: 60,
        headers: { Authorization: `Bearer ${fixture.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ model: 'videoq2-turbo', duration: 2 }),
      },
      (error, r) => (error ? reject(error) : resolve(r)),
    );
    // What a failed request died of (ECONNRESET, a timeout...), so a failure in a run can be explained.
    instance.on('reqError', (error) => {
      const code = error.code ?? error.message;
      errorCodes[code] = (errorCodes[code] ?? 0) + 1;
    });
  });
  const peak = peakRssMb(service.child.pid);
  service.child.kill('SIGTERM');
  slow.child.disconnect();
  return {
    concurrent: BURST,
    succeeded: result['2xx'],
    failed: result.non2xx + result.errors + result.timeouts,
    failures: { non2xx: result.non2xx, errors: result.errors, timeouts: result.timeouts, errorCodes },
    p50Ms: result.latency.p50,
    peakRssMb: peak,
  };
}

/** The catalog issue's PostgreSQL write targets (README, "PostgreSQL writes"). */
const WRITE_ROUTES = ['PUT node', 'PUT version', 'POST review'];
const MIN_WRITE_RATIO = 0.5;
const MAX_WRITE_P50_OVER_BASELINE = 2;

/** Each PostgreSQL write row, judged against those targets; printed, and kept in the results. */
function writeTargets(rows) {
  const judged = rows
    .filter((r) => r.database === 'postgres' && WRITE_ROUTES.includes(r.route))
    .map((r) => {
      const p50Ratio = +(r.service.p50Ms / r.baseline.p50Ms).toFixed(2);
      return { route: r.route, ratio: r.ratio, p50OverBaseline: p50Ratio, met: r.ratio >= MIN_WRITE_RATIO && p50Ratio <= MAX_WRITE_P50_OVER_BASELINE };
    });
  for (const t of judged) {
    console.log(`  [${t.met ? 'met' : 'NOT MET'}] postgres ${t.route}: ${t.ratio}× the baseline (≥ ${MIN_WRITE_RATIO}), p50 ${t.p50OverBaseline}× its p50 (≤ ${MAX_WRITE_P50_OVER_BASELINE})`);
  }
  return judged;
}

/** A row's service: its database, or the floor's forwarder. */
const labelOf = (row) => row.floor ?? row.database;

function printTable(rows) {
  const header = ['database / floor', 'route', 'svc req/s', 'svc p50', 'svc p99', 'svc cpu ms', 'base req/s', 'base p50', 'base p99', 'base cpu ms', 'ratio', 'ratio range'];
  const lines = rows.map(({ service: s, baseline: b, ...r }) =>
    [labelOf(r), r.route, s.requestsPerSecond, s.p50Ms, s.p99Ms, s.cpuMsPerRequest, b?.requestsPerSecond, b?.p50Ms, b?.p99Ms, b?.cpuMsPerRequest, r.ratio, r.ratioRange?.join('–')].map((cell) => String(cell ?? '—')),
  );
  const widths = header.map((title, i) => Math.max(title.length, ...lines.map((cells) => cells[i].length)) + 2);
  for (const cells of [header, ...lines]) console.log(cells.map((cell, i) => cell.padEnd(widths[i])).join('').trimEnd());
}

/** The service, its baselines, the video route, bursts and calibration: the results file's top-level figures. */
async function serviceSections() {
  const dir = mkdtempSync(join(tmpdir(), 'registry-bench-'));
  const upstreamHelper = await startHelper('fake-upstream.js', { BENCH_UPSTREAM_DELAY_MS: String(UPSTREAM_DELAY_MS) });
  const upstream = { url: upstreamHelper.url, pid: upstreamHelper.child.pid };
  try {
    const runs = [await benchDatabase('sqlite', `sqlite:${join(dir, 'bench.db')}`, upstream)];
    if (process.env.BENCH_DATABASE_URL) runs.push(await benchDatabase('postgres', process.env.BENCH_DATABASE_URL, upstream));
    const videoBurst = await burst(`sqlite:${join(dir, 'burst.db')}`);
    const frameworks = await calibration();
    const floor = await videoFloor(upstream);
    const rows = runs.flatMap((run) => run.rows);
    const allRows = [...rows, ...floor];
    printTable(allRows);
    const judgedWrites = writeTargets(rows);
    console.log(
      `framework alone (trivial JSON route): ${frameworks.map((f) => `${f.server} ${f.requestsPerSecond} req/s (${f.ratio})`).join(', ')}`,
    );
    for (const r of allRows.filter((row) => row.oneConnection)) {
      const label = labelOf(r);
      const { service, upstream: direct, addedMeanMs } = r.oneConnection;
      console.log(
        `video at 1 connection (${label}): p50 ${service.p50Ms} ms (mean ${service.meanMs}), upstream direct p50 ${direct.p50Ms} ms (mean ${direct.meanMs}): +${addedMeanMs} ms`,
      );
      const moderate = r.moderateLoad;
      console.log(
        `video at ${CONNECTIONS} connections, ${moderate.upstreamDelayMs} ms upstream (${label}): ${moderate.service.requestsPerSecond} req/s, p50 ${moderate.service.p50Ms} ms (mean ${moderate.service.meanMs}), upstream direct p50 ${moderate.upstream.p50Ms} ms (mean ${moderate.upstream.meanMs}): +${moderate.addedP50Ms} ms p50, +${moderate.addedMeanMs} ms mean`,
      );
    }
    for (const run of runs) {
      console.log(`${run.label}: cold start to /health/ready ${run.coldStartMs} ms, peak RSS ${run.peakRssMb} MB`);
    }
    console.log(
      `video burst: ${videoBurst.succeeded}/${videoBurst.concurrent} succeeded against a 2 s upstream (failures ${JSON.stringify(videoBurst.failures)}), peak RSS ${videoBurst.peakRssMb} MB`,
    );
    const results = {
      when: new Date().toISOString(),
      smoke: SMOKE,
      machine: { cpus: cpus().length, node: process.version },
      durationSeconds: DURATION_S,
      connections: CONNECTIONS,
      rows,
      writeTargets: judgedWrites,
      coldStartMs: Object.fromEntries(runs.map((run) => [run.label, run.coldStartMs])),
      peakRssMb: Object.fromEntries(runs.map((run) => [run.label, run.peakRssMb])),
      videoBurst,
      calibration: frameworks,
      videoFloor: floor,
    };
    // Every measured load, the service's and its reference's: a failed request in either makes the ratio meaningless.
    const broken = failedLoads(allRows);
    if (videoBurst.failed > 0) broken.push('video burst');
    if (broken.length > 0) {
      console.error(`requests failed: ${broken.join(', ')}`);
      process.exitCode = 1;
    }
    return results;
  } finally {
    upstreamHelper.child.disconnect();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** With `--only`, the figures of the sections not run stay as the results file has them. */
function previousResults() {
  return existsSync(RESULTS) ? JSON.parse(readFileSync(RESULTS, 'utf8')) : { when: new Date().toISOString(), smoke: SMOKE, machine: { cpus: cpus().length, node: process.version } };
}

/** A load that failed requests makes its ratio meaningless. */
function failedLoads(rows) {
  const loads = (r) => [r.service, r.baseline, r.moderateLoad?.service, r.moderateLoad?.upstream, r.oneConnection?.service].filter(Boolean);
  return rows
    .filter((r) => loads(r).some((l) => l.non2xx > 0 || l.requestsPerSecond === 0))
    .map((r) => `${labelOf(r)} ${r.route} ${JSON.stringify(loads(r).map((l) => l.failures).filter(Boolean))}`);
}

/**
 * `--only registry`: the registry routes against the baseline on each database, without the
 * video route; their rows replace the same rows of the results file, the other figures stay.
 */
async function registrySection(results) {
  const dir = mkdtempSync(join(tmpdir(), 'registry-bench-'));
  const upstreamHelper = await startHelper('fake-upstream.js', { BENCH_UPSTREAM_DELAY_MS: String(UPSTREAM_DELAY_MS) });
  const upstream = { url: upstreamHelper.url, pid: upstreamHelper.child.pid };
  try {
    const rows = (await benchDatabase('sqlite', `sqlite:${join(dir, 'bench.db')}`, upstream, { video: false })).rows;
    if (process.env.BENCH_DATABASE_URL) {
      rows.push(...(await benchDatabase('postgres', process.env.BENCH_DATABASE_URL, upstream, { video: false })).rows);
    }
    printTable(rows);
    const judgedWrites = writeTargets(rows);
    const key = (r) => `${r.database}/${r.route}`;
    const replaced = new Set(rows.map(key));
    results.rows = [...(results.rows ?? []).filter((r) => !replaced.has(key(r))), ...rows];
    results.registryWhen = new Date().toISOString();
    if (judgedWrites.length > 0) results.writeTargets = judgedWrites;
    const broken = failedLoads(rows);
    if (broken.length > 0) {
      console.error(`requests failed: ${broken.join(', ')}`);
      process.exitCode = 1;
    }
  } finally {
    upstreamHelper.child.disconnect();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A section's figures, or the error it failed with (and the run fails). */
async function section(name, run) {
  try {
    return await run();
  } catch (error) {
    console.error(`${name} section failed:`, error);
    process.exitCode = 1;
    return { when: new Date().toISOString(), smoke: SMOKE, error: String(error?.message ?? error) };
  }
}

async function main() {
  execFileSync(process.execPath, [join(ROOT, 'scripts/build-if-stale.js')], { stdio: 'inherit' });
  const results = ONLY ? previousResults() : await serviceSections();
  if (ONLY === 'registry') await registrySection(results);
  // These sections report the targets they miss; a failed request or an unexpected status (a broken route) fails the run.
  if (ONLY === undefined || ONLY === 'catalog') results.catalog = await section('catalog', () => runCatalog({ smoke: SMOKE }));
  if (ONLY === undefined || ONLY === 'attacks') {
    results.bodyAttacks = await section('body attacks', () => runBodyAttacks({ smoke: SMOKE }));
    if (results.bodyAttacks.unexpectedStatuses?.length > 0) process.exitCode = 1;
  }
  if (ONLY === undefined || ONLY === 'extraction') results.extraction = await section('extraction', () => runExtraction({ smoke: SMOKE }));
  if (ONLY === undefined || ONLY === 'checks') results.archiveChecks = await section('archive checks', () => runArchiveChecks({ smoke: SMOKE }));
  if (ONLY === undefined || ONLY === 'metrics') results.metrics = await section('metrics', () => runMetrics({ smoke: SMOKE }));
  if (ONLY === undefined || ONLY === 'results') results.videoResults = await section('results', () => runResults({ smoke: SMOKE }));
  writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`wrote ${RESULTS}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
