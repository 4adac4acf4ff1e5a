#!/usr/bin/env node
// Prints one scrape of GET /metrics from the built service (dist/), for `promtool check metrics` in .ci/run:
// the service on a free port with a temporary SQLite database and METRICS_TOKEN set, after a few requests
// (a catalog page, an unknown node, an unknown route), so that the request figures have series.
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { startService, stopService } = require('../bench/lib');

const TOKEN = 'ci-metrics-scrape-token';

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'ci-metrics-'));
  const service = await startService(`sqlite:${join(dir, 'ci.db')}`, undefined, { METRICS_TOKEN: TOKEN, STORAGE_DIR: join(dir, 'archives') });
  try {
    for (const path of ['/nodes', '/nodes/no-such-node', '/no-such-route']) await (await fetch(`${service.url}${path}`)).arrayBuffer();
    const response = await fetch(`${service.url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    if (!response.ok) throw new Error(`GET /metrics answered ${response.status}`);
    process.stdout.write(await response.text());
  } finally {
    await stopService(service);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
