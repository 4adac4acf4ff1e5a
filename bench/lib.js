// Helpers shared by the benchmark's sections (bench/run.js, bench/catalog.js, bench/body-attacks.js).
const { execFileSync, fork, spawn } = require('node:child_process');
const { existsSync, readFileSync } = require('node:fs');
const { createServer } = require('node:net');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');

const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function freePort() {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const round = (value, digits = 2) => (value === undefined || value === null || Number.isNaN(value) ? null : +value.toFixed(digits));

/** Nearest-rank percentile of sorted samples. */
function percentile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/** CPU seconds (user + system) a process has used so far; Linux counts in 1/100 s. */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** A process's memory figure from /proc/<pid>/status (VmRSS now, VmHWM its peak so far), in MiB. */
function memoryMb(pid, field) {
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : undefined;
}

function peakRssMb(pid) {
  const peak = memoryMb(pid, 'VmHWM');
  return peak === undefined ? undefined : Math.round(peak);
}

const rssMb = (pid) => memoryMb(pid, 'VmRSS');

/** A child script of bench/ that reports its port over IPC. */
async function startHelper(script, env) {
  const child = fork(join(__dirname, script), [], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const { port } = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

/** The service's CLI (dist/src/cli.js) against `databaseUrl`; its JSON output, parsed. */
function cli(databaseUrl, ...args) {
  return cliOf(ROOT, databaseUrl, ...args);
}

/** The CLI of the build checked out at `root` (another build's, for bench/catalog.js's before and after). */
function cliOf(root, databaseUrl, ...args) {
  return JSON.parse(execFileSync(process.execPath, [join(root, 'dist/src/cli.js'), ...args], { env: { ...process.env, DATABASE_URL: databaseUrl } }).toString());
}

/** The commit measured, marked when src/ has uncommitted changes; null outside a git checkout. */
function commitOf() {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT }).toString().trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], { cwd: ROOT }).toString().trim() !== '';
    return dirty ? `${commit}+dirty src` : commit;
  } catch {
    return null;
  }
}

/** Services still running when the bench exits (a failed step throws past their stop) are stopped with it. */
const running = new Set();
process.on('exit', () => {
  for (const child of running) child.kill('SIGTERM');
});

/**
 * The built service (dist/src/main.js) on a free port, once /health/ready answers. `upstreamUrl`
 * undefined leaves VIDEO_UPSTREAM_URL unset (the built-in sandbox upstream); `env` adds variables; `root` is the
 * checkout whose build runs (another one for bench/catalog.js's before and after).
 */
async function startService(databaseUrl, upstreamUrl, env = {}, root = ROOT) {
  const port = await freePort();
  const started = Date.now();
  // The V8 flag npm start and the Dockerfile set (docs/decisions.md), so the bench measures what production runs.
  const child = spawn(process.execPath, ['--no-allocation-site-pretenuring', join(root, 'dist/src/main.js')], {
    env: {
      ...process.env,
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'warn',
      THROTTLE_LIMIT: '0',
      VIDEO_UPSTREAM_URL: upstreamUrl,
      VIDEO_UPSTREAM_API_KEY: 'bench-key',
      VIDEO_UPSTREAM_TIMEOUT_MS: '30000',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/health/ready`)).ok) break;
    } catch {
      // not listening yet
    }
    await wait(20);
  }
  return { child, url, coldStartMs: Date.now() - started };
}

/** SIGTERM, then wait for the process to exit (graceful shutdown flushes, closes the database). */
async function stopService(service) {
  const { child } = service;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/**
 * A build's own `fold_case()` on a better-sqlite3 connection, as its service registers it on each connection: the
 * kept search totals' triggers call it, so a connection without it cannot write `nodes`. A build from before it has
 * none, and no trigger that needs it.
 */
function registerFoldCase(db, root = ROOT) {
  const file = join(root, 'dist/src/database/fold-case.js');
  if (!existsSync(file)) return;
  const { FOLD_CASE_SQL, foldCase } = require(file);
  db.function(FOLD_CASE_SQL, { deterministic: true }, (value) => (typeof value === 'string' ? foldCase(value) : value));
}

module.exports = { ROOT, wait, round, percentile, freePort, cpuSeconds, peakRssMb, rssMb, startHelper, cli, cliOf, commitOf, startService, stopService, registerFoldCase };
