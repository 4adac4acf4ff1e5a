#!/usr/bin/env node
// The benchmark's results section (`npm run bench [-- --smoke] [-- --only results]`, or `node bench/video-results.js
// [--smoke]` after `npm run build`): keeping a finished task's video (CONTRACT §4.4). Targets: storing a 500 MiB
// result streams it (the service's memory grows by at most 64 MiB while it downloads, and other requests' p50 is at
// most 1.5× what it was before), and a Range read of the last MiB of the stored 500 MiB file takes under 50 ms.
//
// Measured against the built service on a SQLite file: an upstream in this process answers the create, reports the
// task a success when polled, and serves the 500 MiB video (an mp4 `ftyp` box, then a 1 MiB random block repeated,
// generated as it is sent) and a small cover. After a warm-up, for 5 s before the task: GET /users/me (bearer token, a
// database read) in a loop, its p50, and the service's peak RSS (sampled every 20 ms: GC makes it swing under any
// traffic). Then the success is polled once (the download starts) and, until the task shows the video stored, the
// same loop and sampling run: growth = peak during − peak before. Then the signed
// `stored_url` is read with `Range: bytes=<last MiB>` RANGE_READS times (after one warm-up): first and median time.
// A missed target is reported, not a failure; a failed request or a file that is never stored is.
const { randomBytes } = require('node:crypto');
const { once } = require('node:events');
const { mkdtempSync, rmSync } = require('node:fs');
const { createServer } = require('node:http');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { performance } = require('node:perf_hooks');
const { cli, percentile, round, rssMb, startHelper, startService, stopService } = require('./lib');

const MIB = 1024 * 1024;
const MAX_GROWTH_MB = 64;
const MAX_P50_RATIO = 1.5;
const MAX_RANGE_MS = 50;
const RANGE_READS = 20;
/** How long the same traffic runs before the download, for the baseline p50 and RSS peak. */
const BASELINE_MS = 5000;

const median = (values) => percentile([...values].sort((a, b) => a - b), 0.5);

/** Resolves when `res` can take more, or is gone; leaves no listener behind. */
function drainedOrClosed(res) {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * The upstream: creates, a task status that is a success, and the files it names. Runs in a process of its own
 * (startHelper, RESULTS_UPSTREAM_BYTES set), so that sending 500 MiB does not hold up the probe's requests.
 */
async function serveUpstream(videoBytes) {
  const block = randomBytes(MIB);
  const head = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom', 'latin1'), block.subarray(12)]);
  const cover = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(64 * 1024)]);
  let base = '';
  const server = createServer(async (req, res) => {
    for await (const chunk of req) void chunk;
    const status = /^\/ent\/v2\/tasks\/([^/]+)\/creations$/.exec(req.url);
    if (req.method === 'POST' && req.url === '/ent/v2/reference2video') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ task_id: `bench-${Date.now()}`, state: 'created', credits: 10, model: 'videoq2-turbo', duration: 2 }));
    } else if (status) {
      const creations = [{ id: 'v1', url: `${base}/files/video.mp4`, cover_url: `${base}/files/cover.jpg` }];
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ id: decodeURIComponent(status[1]), state: 'success', credits: 10, creations }));
    } else if (req.url === '/files/cover.jpg') {
      res.writeHead(200, { 'Content-Length': String(cover.length) }).end(cover);
    } else if (req.url === '/files/video.mp4') {
      res.writeHead(200, { 'Content-Type': 'video/mp4', 'Content-Length': String(videoBytes) });
      for (let sent = 0; sent < videoBytes && !res.destroyed; sent += MIB) {
        const chunk = (sent === 0 ? head : block).subarray(0, Math.min(MIB, videoBytes - sent));
        if (!res.write(chunk)) await drainedOrClosed(res);
      }
      res.end();
    } else {
      res.writeHead(404).end();
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${server.address().port}`;
  process.send({ port: server.address().port });
  process.on('disconnect', () => process.exit(0));
}

async function get(url, headers = {}) {
  const started = performance.now();
  const response = await fetch(url, { headers });
  const body = Buffer.from(await response.arrayBuffer());
  if (!response.ok) throw new Error(`GET ${url}: ${response.status} ${body.toString().slice(0, 300)}`);
  return { response, body, ms: performance.now() - started };
}

/** GET /users/me in a loop until `until()` says stop (or `count` requests): each request's time. */
async function probe(url, auth, { count, until }) {
  const times = [];
  while (count !== undefined ? times.length < count : !(await until())) times.push((await get(`${url}/users/me`, auth)).ms);
  return times;
}

async function runResults({ smoke = false } = {}) {
  const videoBytes = (smoke ? 16 : 500) * MIB;
  const dir = mkdtempSync(join(tmpdir(), 'results-bench-'));
  const upstream = await startHelper('video-results.js', { RESULTS_UPSTREAM_BYTES: String(videoBytes) });
  const databaseUrl = `sqlite:${join(dir, 'results.db')}`;
  const service = await startService(databaseUrl, upstream.url, { STORAGE_DIR: join(dir, 'archives'), CALLBACK_ALLOW_PRIVATE: 'true' });
  try {
    const user = cli(databaseUrl, 'user', 'create', '--email', 'results-bench@example.com', '--name', 'Results Bench');
    cli(databaseUrl, 'credits', 'grant', '--user', user.id, '--amount', '1000');
    const { token } = cli(databaseUrl, 'token', 'create', '--user', user.id);
    const auth = { Authorization: `Bearer ${token}` };
    const pid = service.child.pid;

    // Warm-up: the service's heap grows under any traffic until it settles; only the download's growth is measured.
    await probe(service.url, auth, { count: smoke ? 50 : 3000 });
    // The baseline: the same traffic for a while, its RSS sampled as during the download (GC makes it swing).
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid) ?? 0)), 20);
    const baselineUntil = performance.now() + BASELINE_MS;
    const before = await probe(service.url, auth, { until: async () => performance.now() >= baselineUntil });
    const peakBefore = peak;
    peak = 0;

    const created = await fetch(`${service.url}/proxy/video/reference2video`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ duration: 2 }),
    });
    if (!created.ok) throw new Error(`create: ${created.status} ${await created.text()}`);
    const taskId = (await created.json()).task_id;
    const taskUrl = `${service.url}/proxy/video/tasks/${taskId}`;
    const started = performance.now();
    await get(taskUrl, auth); // the poll that records the success and queues the download

    let task;
    const during = await probe(service.url, auth, {
      until: async () => {
        if (performance.now() - started > 10 * 60_000) throw new Error('the result was not stored within 10 minutes');
        task = JSON.parse((await get(taskUrl, auth)).body.toString());
        const state = task.creations?.[0]?.store_state;
        if (state === 'failed') throw new Error(`the result could not be stored: ${JSON.stringify(task)}`);
        return state === 'stored';
      },
    });
    const storeMs = performance.now() - started;
    clearInterval(sampler);
    const peakDuring = peak;

    const link = task.creations[0].stored_url;
    const range = { Range: `bytes=${videoBytes - MIB}-${videoBytes - 1}` };
    const reads = [];
    for (let r = 0; r <= RANGE_READS; r++) {
      const { response, body, ms } = await get(link, range);
      if (response.status !== 206 || body.length !== MIB) throw new Error(`range read: ${response.status}, ${body.length} bytes`);
      reads.push(ms);
    }
    const figures = {
      when: new Date().toISOString(),
      smoke,
      videoMiB: videoBytes / MIB,
      storeSeconds: round(storeMs / 1000, 1),
      storeMiBPerSecond: round(videoBytes / MIB / (storeMs / 1000), 1),
      rssPeakBeforeMb: round(peakBefore, 1),
      rssPeakDuringMb: round(peakDuring, 1),
      memoryGrowthMb: round(peakDuring - peakBefore, 1),
      otherRequests: { before: before.length, during: during.length, p50BeforeMs: round(median(before)), p50DuringMs: round(median(during)) },
      p50Ratio: round(median(during) / median(before)),
      lastMiBRange: { firstMs: round(reads[0]), medianMs: round(median(reads.slice(1))), maxMs: round(Math.max(...reads.slice(1))) },
    };
    figures.targets = {
      memoryGrowth: figures.memoryGrowthMb <= MAX_GROWTH_MB ? 'met' : `missed (${figures.memoryGrowthMb} MB > ${MAX_GROWTH_MB} MB)`,
      otherRequests: figures.p50Ratio <= MAX_P50_RATIO ? 'met' : `missed (${figures.p50Ratio}× > ${MAX_P50_RATIO}×)`,
      lastMiBRange: figures.lastMiBRange.medianMs < MAX_RANGE_MS ? 'met' : `missed (${figures.lastMiBRange.medianMs} ms ≥ ${MAX_RANGE_MS} ms)`,
    };
    console.log(
      `results: stored ${figures.videoMiB} MiB in ${figures.storeSeconds} s (${figures.storeMiBPerSecond} MiB/s); memory +${figures.memoryGrowthMb} MB ` +
        `(target ≤ ${MAX_GROWTH_MB}); /users/me p50 ${figures.otherRequests.p50BeforeMs} → ${figures.otherRequests.p50DuringMs} ms ` +
        `(${figures.p50Ratio}×, target ≤ ${MAX_P50_RATIO}×); last MiB Range read ${figures.lastMiBRange.medianMs} ms median, ` +
        `${figures.lastMiBRange.firstMs} ms first (target < ${MAX_RANGE_MS} ms)`,
    );
    return figures;
  } finally {
    await stopService(service);
    upstream.child.disconnect();
    rmSync(dir, { recursive: true, force: true });
  }
}

module.exports = { runResults };

if (process.env.RESULTS_UPSTREAM_BYTES) {
  void serveUpstream(Number(process.env.RESULTS_UPSTREAM_BYTES));
} else if (require.main === module) {
  runResults({ smoke: process.argv.includes('--smoke') })
    .then((figures) => console.log(JSON.stringify(figures, null, 2)))
    .catch((error) => {
      console.error(error);
      process.exit(1);
    });
}
