#!/usr/bin/env node
// Builds dist/ when it is missing or older than any source file, so `npm start`
// and `npm run cli` work straight after `npm ci`. Talks on stderr only: the
// CLI's stdout is reserved for its JSON output.
const { execFileSync } = require('node:child_process');
const { existsSync, readdirSync, statSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
// Incremental tsc rewrites only changed files, so freshness is judged by a stamp written after each build.
const stamp = join(root, 'dist', '.build-stamp');

function newestMtime(path) {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  return readdirSync(path).reduce((newest, entry) => Math.max(newest, newestMtime(join(path, entry))), 0);
}

// Without src/ (the Docker image, which has dist/ only) there is nothing to build from.
if (!existsSync(join(root, 'src'))) process.exit(0);

const inputs = ['src', 'scripts', 'package.json', 'tsconfig.json', 'tsconfig.build.json', 'nest-cli.json']
  .map((entry) => join(root, entry))
  .filter(existsSync);
const stale = !existsSync(stamp) || inputs.some((input) => newestMtime(input) > statSync(stamp).mtimeMs);

// `--stamp`: after `npm run build` (postbuild), so that a check right after it does not build again.
if (process.argv.includes('--stamp')) {
  writeFileSync(stamp, new Date().toISOString());
} else if (stale) {
  process.stderr.write('Building (dist/ is missing or out of date)...\n');
  execFileSync(process.execPath, [require.resolve('@nestjs/cli/bin/nest.js'), 'build'], {
    cwd: root,
    stdio: ['ignore', process.stderr, 'inherit'],
  });
  writeFileSync(stamp, new Date().toISOString());
}
