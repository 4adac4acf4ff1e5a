// The metrics section (`npm run bench -- --only metrics`, issue 37): what serving GET /metrics costs. The same build
// twice on one database (BENCH_DATABASE_URL, else a SQLite file), METRICS_TOKEN unset and set, the second scraped
// every 15 s as Prometheus would: PUT node at 32 connections (write throughput) in alternating rounds, and the
// first catalog page of 100 (cached: the cheapest read, where a fixed cost per request shows most) one request at a
// time, each service in turn. Target: both within 5% of metrics off (reported, not a failure). The writes' CPU per
// request is printed too: on a shared machine it moves less than the throughput.
const autocannon = require('autocannon');
const { mkdtempSync, rmSync } = require('node:fs');
const { Agent, request } = require('node:http');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { cli, cpuSeconds, percentile, round, startService, stopService, wait } = require('./lib');

const TOKEN = 'bench-metrics-token-0123456789';
const SCRAPE_INTERVAL_MS = 15_000;
const NODES = 100;
const PAGE = `/nodes?page=1&limit=${NODES}`;
const MAX_SLOWDOWN = 0.05;

async function send(method, url, token, body) {
  const response = await fetch(url, { method, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
}

/** A publisher with NODES nodes (a full first page), and a token of its owner. */
async function seed(databaseUrl, serviceUrl) {
  const user = cli(databaseUrl, 'user', 'create', '--email', `bench-metrics-${Date.now()}@example.com`, '--name', 'Bench');
  const { token } = cli(databaseUrl, 'token', 'create', '--user', user.id);
  const publisher = `bench-metrics-${Date.now().toString(36)}`;
  await send('POST', `${serviceUrl}/publishers`, token, { id: publisher, name: 'Bench' });
  for (let i = 0; i < NODES; i += 1) {
    await send('POST', `${serviceUrl}/publishers/${publisher}/nodes`, token, { id: `${publisher}-${i}`, name: `Node ${i}`, description: 'x' });
  }
  return { token, nodePath: `/publishers/${publisher}/nodes/${publisher}-0` };
}

/** One load of PUT node at 32 connections: requests per second and CPU per request of the service. */
async function writes(service, fixture, seconds) {
  const cpuBefore = cpuSeconds(service.child.pid);
  const result = await new Promise((resolve, reject) =>
    autocannon(
      {
        url: `${service.url}${fixture.nodePath}`,
        method: 'PUT',
        connections: 32,
        duration: seconds,
        headers: { Authorization: `Bearer ${fixture.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ description: 'benchmarked' }),
      },
      (error, r) => (error ? reject(error) : resolve(r)),
    ),
  );
  // Requests still in flight when autocannon stops finish before the other service's load begins.
  await wait(250);
  if (result.non2xx + result.errors + result.timeouts > 0) throw new Error(`PUT node failed ${result.non2xx + result.errors + result.timeouts} requests`);
  const cpu = cpuSeconds(service.child.pid) - cpuBefore;
  return { requestsPerSecond: Math.round(result['2xx'] / seconds), cpuMsPerRequest: round((cpu * 1000) / result.requests.total) };
}

/** One GET over the service's own keep-alive connection: the time to the reply's last byte. */
function timedGet(service, path) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = request(`${service.url}${path}`, { agent: service.agent }, (res) => {
      res.on('data', () => {});
      res.on('end', () => (res.statusCode === 200 ? resolve(Number(process.hrtime.bigint() - started) / 1e6) : reject(new Error(`GET ${path}: ${res.statusCode}`))));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function runMetrics({ smoke }) {
  const dir = mkdtempSync(join(tmpdir(), 'registry-bench-metrics-'));
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? `sqlite:${join(dir, 'bench.db')}`;
  const database = databaseUrl.startsWith('postgres') ? 'postgres' : 'sqlite';
  const rounds = smoke ? 1 : 9;
  const seconds = smoke ? 1 : Math.max(2, Number(process.env.BENCH_DURATION_S ?? 10) / 2);
  const samples = smoke ? 50 : 1000;
  const off = await startService(databaseUrl, undefined);
  const on = await startService(databaseUrl, undefined, { METRICS_TOKEN: TOKEN });
  const scrape = async () => {
    const response = await fetch(`${on.url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    if (!response.ok) throw new Error(`GET /metrics: ${response.status}`);
    await response.text();
  };
  let scraping;
  try {
    const fixture = await seed(databaseUrl, off.url);
    await scrape();
    scraping = setInterval(() => scrape().catch((error) => console.error(`scrape failed: ${error.message}`)), SCRAPE_INTERVAL_MS);

    // Writes: warm-up, then rounds in the order off, on, on, off, … so a drift of the machine's speed cancels out.
    for (const service of [off, on]) await writes(service, fixture, smoke ? 1 : 2);
    const writeRounds = [];
    for (let i = 0; i < rounds; i += 1) {
      const order = i % 2 === 0 ? [off, on] : [on, off];
      const [first, second] = [await writes(order[0], fixture, seconds), await writes(order[1], fixture, seconds)];
      const [offRound, onRound] = order[0] === off ? [first, second] : [second, first];
      writeRounds.push({ off: offRound, on: onRound, ratio: onRound.requestsPerSecond / offRound.requestsPerSecond });
    }
    const medianOf = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    writeRounds.sort((a, b) => a.ratio - b.ratio);
    const median = writeRounds[Math.floor(writeRounds.length / 2)];
    const cpuRatio = medianOf(writeRounds.map((r) => r.on.cpuMsPerRequest / r.off.cpuMsPerRequest));

    // The catalog page: each service asked in turn, over its own connection.
    for (const service of [off, on]) service.agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const pageMs = new Map([[off, []], [on, []]]);
    for (let i = 0; i < samples + 100; i += 1) {
      for (const service of i % 2 === 0 ? [off, on] : [on, off]) {
        const ms = await timedGet(service, PAGE);
        if (i >= 100) pageMs.get(service).push(ms);
      }
    }
    const p50 = (service) => round(percentile([...pageMs.get(service)].sort((a, b) => a - b), 0.5), 3);
    const page = { offP50Ms: p50(off), onP50Ms: p50(on), samples };
    page.p50Ratio = round(page.onP50Ms / page.offP50Ms, 3);
    page.met = page.p50Ratio <= 1 + MAX_SLOWDOWN;

    const write = {
      route: 'PUT node',
      off: median.off,
      on: median.on,
      ratio: round(median.ratio, 3),
      ratioRange: [round(writeRounds[0].ratio, 3), round(writeRounds[writeRounds.length - 1].ratio, 3)],
      cpuPerRequestRatio: round(cpuRatio, 3),
    };
    write.met = write.ratio >= 1 - MAX_SLOWDOWN;
    const mark = (met) => (met ? 'met' : 'NOT MET');
    console.log(
      `  [${mark(write.met)}] metrics on (${database}): PUT node ${write.ratio}× the req/s of metrics off (${write.on.requestsPerSecond} vs ${write.off.requestsPerSecond}; rounds ${write.ratioRange.join('–')}; ≥ ${1 - MAX_SLOWDOWN}), ${write.cpuPerRequestRatio}× its CPU per request`,
    );
    console.log(`  [${mark(page.met)}] metrics on (${database}): catalog page p50 ${page.p50Ratio}× metrics off (${page.onP50Ms} vs ${page.offP50Ms} ms; ≤ ${1 + MAX_SLOWDOWN})`);
    return { when: new Date().toISOString(), smoke, database, rounds, secondsPerLoad: seconds, writes: write, catalogPage: page };
  } finally {
    clearInterval(scraping);
    await Promise.all([stopService(off), stopService(on)]);
    rmSync(dir, { recursive: true, force: true });
  }
}

module.exports = { runMetrics };
