#!/usr/bin/env node
// Creates or drops a throwaway PostgreSQL database for the CI e2e run:
//   node .ci/pg-database.js create|drop <name>
// Uses the pg driver the project already depends on, so CI needs no psql.
const { Client } = require('pg');

const [action, name] = process.argv.slice(2);
if (!['create', 'drop'].includes(action) || !/^[a-z_][a-z0-9_]*$/.test(name ?? '')) {
  console.error('usage: pg-database.js create|drop <name>');
  process.exit(2);
}
const client = new Client({ connectionString: process.env.CI_POSTGRES_ADMIN_URL ?? 'postgres://root@127.0.0.1:5432/postgres' });
client
  .connect()
  .then(() => client.query(action === 'create' ? `CREATE DATABASE "${name}"` : `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`))
  .then(() => client.end())
  .catch((error) => {
    console.error(`could not ${action} database ${name}: ${error.message}`);
    process.exit(1);
  });
