#!/usr/bin/env node
// The archive checks' benchmark (`npm run build`, then `node bench/archive-checks.js`): CONTRACT §10's checks of a
// node-pack archive (dist/src/nodes/archive-checks/check-archive.js) run as the service runs them, on its thread. The
// issue's targets: "Checking a 100 MiB archive of 10,000 files streams it: peak memory of the service grows by at most
// 64 MiB while it runs, and other requests' p50 latency stays within 1.5× meanwhile. A 1 GiB-uncompressed zip bomb is
// recognised from its headers and stopped before 1 GiB is inflated."
//
// This process makes the archives, then a child process (Node as `npm start` runs it, the Python parser loaded first,
// as the service's extraction loads it) checks them, and serves a trivial HTTP route that this process calls, one
// request every 5 ms: the route's p50 without a check and during one, in alternating rounds. The child samples
// process.memoryUsage() every 10 ms (growth = the largest sample less the one before the check) and the event loop's
// delay, and counts the bytes zlib inflates for it. The route answers in a fraction of a millisecond, so the ratio is
// the worst case: the service's own routes take longer, and the same added delay weighs less on them. The pack: 4,000 Python modules (8 KiB, deflated; one in 20 says exec and base64, so
// it is parsed; one runs exec on decoded data), 1,000 JSON files (16 KiB, deflated; one holds a made-up AWS key id)
// and 5,000 data files (20 KiB of random bytes, stored). The bombs: 1 GiB + 1 MiB of zeros deflated into about 1 MB,
// declared as such; and 1 GiB of text whose header declares 1 MiB. Prints one JSON line; a missed target is reported.
const { fork } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const { mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const http = require('node:http');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { monitorEventLoopDelay, performance } = require('node:perf_hooks');
const zlib = require('node:zlib');
const { strToU8, zipSync } = require('fflate');
const { ROOT, commitOf, percentile, round } = require('./lib');

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const MAX_GROWTH_MIB = 64;
const MAX_LATENCY_RATIO = 1.5;
const SAMPLE_MS = 10;
/** Rounds of other requests: each without a check for BASELINE_MS, then during a check of the pack. */
const ROUNDS = 3;
const BASELINE_MS = 2000;
const REQUEST_INTERVAL_MS = 5;

/** A Python module of about 8 KiB; every 20th says exec and base64 (so it is parsed), module 7 runs decoded code. */
function pythonModule(n) {
  const lines = ['import json', 'import torch', n % 20 === 0 ? 'import base64' : '', ''];
  for (let k = 0; lines.join('\n').length < 8 * 1024; k++) {
    lines.push(`def helper_${n}_${k}(images, radius=3):`, '    kernel = torch.ones(radius * 2 + 1) / (radius * 2 + 1)', '    return [image * kernel.sum() for image in images]', '');
  }
  if (n % 20 === 0) lines.push('def encode(data):', '    return base64.b64encode(data)  # never exec', '');
  if (n === 7) lines.push('import zlib', 'exec(zlib.decompress(PAYLOAD))', '');
  return lines.join('\n');
}

/** The pack's zip: with the default counts ~100 MiB, 10,000 files. */
function packZip({ modules, tables, parts }) {
  const files = { 'bench_pack/__init__.py': [strToU8('NODE_CLASS_MAPPINGS = {}\n'), { level: 6 }] };
  for (let n = 0; n < modules; n++) files[`bench_pack/nodes/module_${n}.py`] = [strToU8(pythonModule(n)), { level: 6 }];
  for (let n = 0; n < tables; n++) {
    const rows = Array.from({ length: 400 }, (_, k) => ({ id: k, name: `row ${k} of table ${n}`, weight: k / 7 }));
    if (n === 500) rows[3].name = 'AKIAIOSFODNN7EXAMPLE';
    files[`bench_pack/data/table_${n}.json`] = [strToU8(JSON.stringify(rows, null, 1).slice(0, 16 * 1024)), { level: 6 }];
  }
  for (let n = 0; n < parts; n++) files[`bench_pack/weights/part_${n}.bin`] = [randomBytes(20 * 1024), { level: 0 }];
  return Buffer.from(zipSync(files));
}

/** Little-endian fields of the given byte widths. */
function fields(...values) {
  const out = Buffer.alloc(values.reduce((sum, [width]) => sum + width, 0));
  let offset = 0;
  for (const [width, value] of values) offset = width === 2 ? out.writeUInt16LE(value, offset) : out.writeUInt32LE(value, offset);
  return out;
}

/**
 * A zip of `pack/__init__.py` and one entry of `size` bytes all `fill`, deflated as 1 MiB segments (full flush:
 * byte-aligned, each referring to nothing before it) repeated, so 1 GiB is made from 1 MiB; its headers declare
 * `declared` bytes.
 */
function bombZip(size, fill, declared) {
  const mebibyte = Buffer.alloc(MiB, fill);
  const segment = zlib.deflateRawSync(mebibyte, { finishFlush: zlib.constants.Z_FULL_FLUSH });
  const data = Buffer.concat([...Array(size / MiB).fill(segment), zlib.deflateRawSync(Buffer.alloc(0))]);
  const init = Buffer.from('NODE_CLASS_MAPPINGS = {}\n');
  const entries = [
    { name: Buffer.from('pack/__init__.py'), method: 0, data: init, size: init.length, crc: zlib.crc32(init) },
    { name: Buffer.from('pack/model.bin'), method: 8, data, size: declared, crc: 0 },
  ];
  const locals = [];
  const centrals = [];
  let offset = 0;
  for (const { name, method, data: bytes, size: uncompressed, crc } of entries) {
    // version 2.0, UTF-8 names, method, time, date, crc, sizes, name length, no extra field
    const common = fields([2, 20], [2, 0x0800], [2, method], [2, 0], [2, 0x21], [4, crc], [4, bytes.length], [4, uncompressed], [2, name.length], [2, 0]);
    locals.push(fields([4, 0x04034b50]), common, name, bytes);
    centrals.push(fields([4, 0x02014b50], [2, 20]), common, fields([2, 0], [2, 0], [2, 0], [4, 0], [4, offset]), name);
    offset += 30 + name.length + bytes.length;
  }
  const central = Buffer.concat(centrals);
  return Buffer.concat([...locals, central, fields([4, 0x06054b50], [2, 0], [2, 0], [2, 2], [2, 2], [4, central.length], [4, offset], [2, 0])]);
}

// ---- The child: the service's side. ----

/** zlib's raw inflates (yauzl's, for deflated entries) counted: how many bytes they put out. */
function countInflated() {
  const counter = { bytes: 0 };
  const descriptor = Object.getOwnPropertyDescriptor(zlib, 'createInflateRaw');
  Object.defineProperty(zlib, 'createInflateRaw', {
    ...descriptor,
    value: (options) => descriptor.value(options).on('data', (chunk) => (counter.bytes += chunk.length)),
  });
  return counter;
}

/** checkArchive on `path`, measured: time, memory growth (MiB), the event loop's delay, bytes inflated. */
async function measureCheck(checkArchive, path, inflated) {
  globalThis.gc?.();
  const before = process.memoryUsage();
  const peak = { rss: before.rss, heapUsed: before.heapUsed, external: before.external };
  const sampler = setInterval(() => {
    const now = process.memoryUsage();
    for (const key of Object.keys(peak)) peak[key] = Math.max(peak[key], now[key]);
  }, SAMPLE_MS);
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const inflatedBefore = inflated.bytes;
  const started = performance.now();
  const findings = await checkArchive(path, { version: '1.0.0' });
  const ms = performance.now() - started;
  delay.disable();
  clearInterval(sampler);
  const growth = (key) => round((peak[key] - before[key]) / MiB, 1);
  return {
    ms: round(ms, 1),
    rssGrowthMiB: growth('rss'),
    heapGrowthMiB: growth('heapUsed'),
    externalGrowthMiB: growth('external'),
    eventLoopDelayMs: { p50: round(delay.percentile(50) / 1e6, 1), p99: round(delay.percentile(99) / 1e6, 1), max: round(delay.max / 1e6, 1) },
    inflatedBytes: inflated.bytes - inflatedBefore,
    findings: findings.map(({ code, file, line }) => [code, file, line].filter((part) => part !== undefined).join(' ')),
  };
}

async function child() {
  const inflated = countInflated();
  const { checkArchive } = require(join(ROOT, 'dist/src/nodes/archive-checks/check-archive.js'));
  const server = http.createServer((request, response) => response.end('{"ok":true}')).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  process.on('message', async ({ path, warmUp }) => {
    const result = await measureCheck(checkArchive, path, inflated);
    process.send(warmUp ? { warmedUp: true } : result);
  });
  process.send({ port: server.address().port });
}

// ---- This process: the archives, and the other requests. ----

/**
 * Requests to the child's route, one at a time, one every REQUEST_INTERVAL_MS (as a lightly loaded service sees
 * them, not as fast as it can answer: that would take the check's turns), until `until` resolves: each one's time.
 */
async function requestsUntil(url, until) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const get = () =>
    new Promise((resolve, reject) => {
      const started = performance.now();
      http.get(url, { agent }, (response) => response.resume().on('end', () => resolve(performance.now() - started))).on('error', reject);
    });
  let done = false;
  const result = until.then((value) => {
    done = true;
    return value;
  });
  const times = [];
  while (!done) {
    const started = performance.now();
    times.push(await get());
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, REQUEST_INTERVAL_MS - (performance.now() - started))));
  }
  agent.destroy();
  return { times, result: await result };
}

const reply = (worker) => new Promise((resolve) => worker.once('message', resolve));

/** The checks' figures and targets; `smoke` checks a tenth of the pack, once (CI keeps the script working). */
async function runArchiveChecks({ smoke = false } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'archive-checks-bench-'));
  const worker = fork(join(__dirname, 'archive-checks.js'), ['--child'], { execArgv: ['--no-allocation-site-pretenuring', '--expose-gc'] });
  try {
    const paths = { warmUp: join(dir, 'warm-up.zip'), pack: join(dir, 'pack.zip'), bomb: join(dir, 'bomb.zip'), lyingBomb: join(dir, 'lying-bomb.zip') };
    const sizes = smoke ? { modules: 400, tables: 100, parts: 499 } : { modules: 4000, tables: 1000, parts: 4999 };
    const files = sizes.modules + sizes.tables + sizes.parts + 1;
    const pack = packZip(sizes);
    writeFileSync(paths.pack, pack);
    writeFileSync(paths.warmUp, packZip({ modules: 100, tables: 20, parts: 100 }));
    writeFileSync(paths.bomb, bombZip(GiB + MiB, 0, GiB + MiB));
    writeFileSync(paths.lyingBomb, bombZip(GiB, 'a'.charCodeAt(0), MiB));
    const { port } = await reply(worker);
    const url = `http://127.0.0.1:${port}/`;
    // Loads the parser and compiles the code's hot paths, as a running service has.
    worker.send({ path: paths.warmUp, warmUp: true });
    await reply(worker);
    worker.send({ path: paths.pack });
    const check = await reply(worker);
    // Alternating, so that both sides see the same minutes of a machine whose speed moves.
    const latencies = { before: [], during: [], checkMs: [], rssGrowthMiB: [] };
    for (let round = 0; round < (smoke ? 1 : ROUNDS); round++) {
      latencies.before.push(...(await requestsUntil(url, new Promise((resolve) => setTimeout(resolve, BASELINE_MS)))).times);
      worker.send({ path: paths.pack });
      const during = await requestsUntil(url, reply(worker));
      latencies.during.push(...during.times);
      latencies.checkMs.push(during.result.ms);
      latencies.rssGrowthMiB.push(during.result.rssGrowthMiB);
    }
    worker.send({ path: paths.bomb });
    const bomb = await reply(worker);
    worker.send({ path: paths.lyingBomb });
    const lyingBomb = await reply(worker);
    const sorted = { before: latencies.before.sort((a, b) => a - b), during: latencies.during.sort((a, b) => a - b) };
    const at = (q) => ({ before: round(percentile(sorted.before, q), 3), during: round(percentile(sorted.during, q), 3) });
    const p50 = at(0.5);
    const latencyRatio = round(p50.during / p50.before);
    const otherRequests = {
      everyMs: REQUEST_INTERVAL_MS,
      p50Ms: p50,
      p99Ms: at(0.99),
      requests: { before: sorted.before.length, during: sorted.during.length },
      ratio: latencyRatio,
      checkMs: latencies.checkMs,
      rssGrowthMiB: latencies.rssGrowthMiB,
    };
    const rssGrowthMiB = Math.max(check.rssGrowthMiB, ...latencies.rssGrowthMiB);
    const result = {
      section: 'archive-checks',
      when: new Date().toISOString(),
      commit: commitOf(),
      pack: { bytes: pack.length, files, check, otherRequests },
      bomb: { declaredBytes: GiB + MiB, ...bomb },
      lyingBomb: { realBytes: GiB, declaredBytes: MiB, ...lyingBomb },
      targets: [
        { target: `memory growth while checking the pack ≤ ${MAX_GROWTH_MIB} MiB (RSS, the most of ${ROUNDS + 1} checks)`, value: rssGrowthMiB, met: rssGrowthMiB <= MAX_GROWTH_MIB },
        { target: `other requests' p50 during the check ≤ ${MAX_LATENCY_RATIO}× before`, value: latencyRatio, met: latencyRatio <= MAX_LATENCY_RATIO },
        { target: 'the 1 GiB bomb recognised before 1 GiB is inflated', value: bomb.inflatedBytes, met: bomb.inflatedBytes < GiB && bomb.findings.some((f) => f.startsWith('zip-bomb')) },
        { target: 'the bomb whose header lies stopped before 1 GiB is inflated', value: lyingBomb.inflatedBytes, met: lyingBomb.inflatedBytes < GiB && lyingBomb.findings.some((f) => f.startsWith('zip-bomb')) },
      ],
    };
    console.log(`\narchive checks (a pack of ${result.pack.bytes} bytes, ${files} files):`);
    for (const t of result.targets) console.log(`  [${t.met ? 'met' : 'NOT MET'}] ${t.target}: ${t.value}`);
    return result;
  } finally {
    worker.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv.includes('--child')) {
  child().catch((error) => {
    console.error(error);
    process.exit(1);
  });
} else if (require.main === module) {
  runArchiveChecks({ smoke: process.argv.includes('--smoke') })
    .then((result) => console.log(JSON.stringify(result)))
    .catch((error) => {
      console.error(error);
      process.exit(1);
    });
}

module.exports = { runArchiveChecks };
