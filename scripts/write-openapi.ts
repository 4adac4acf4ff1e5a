import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApp } from '../src/app.factory';
import { buildOpenApiDocument } from '../src/common/openapi/swagger';

/**
 * Writes the OpenAPI document to openapi.json (a committed artefact, so API
 * changes show up in review). With --check, fails when the committed file is
 * stale instead of writing it.
 */
async function main(): Promise<void> {
  process.env.DATABASE_URL = 'sqlite::memory:';
  process.env.LOG_LEVEL = 'silent';
  // GET /metrics exists only with a token: the document describes every route the service can serve.
  process.env.METRICS_TOKEN = 'openapi-document-only';
  const app = await createApp();
  const document = `${JSON.stringify(buildOpenApiDocument(app), null, 2)}\n`;
  await app.close();

  const target = join(__dirname, '..', '..', 'openapi.json');
  if (process.argv.includes('--check')) {
    let committed = '';
    try {
      committed = readFileSync(target, 'utf8');
    } catch {
      // missing counts as stale
    }
    if (committed !== document) {
      console.error('openapi.json is stale: run `npm run openapi` and commit the result.');
      process.exit(1);
    }
    console.error('openapi.json is up to date.');
    return;
  }
  writeFileSync(target, document);
  console.error(`wrote ${target}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
