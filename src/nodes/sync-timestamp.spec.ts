import { BadRequestException } from '@nestjs/common';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { instantOf } from './sync-timestamp';

describe('instantOf (GET /nodes?timestamp=)', () => {
  it('reads a time without a zone as UTC, whatever the server\'s zone', () => {
    // In a process of its own: a zone is read once per process.
    const texts = ['2026-01-01T00:00:00', '2026-01-01T00:00:00.5', '2026-01-01', '2026-01-01T05:00:00+05:00', '2025-12-31T19:00:00-05:00', '2026-01', '2026', '2026-01-01T00:00:00z'];
    const script =
      `const { instantOf } = require('./src/nodes/sync-timestamp');` +
      // The control: Date alone reads the first text in the process's zone.
      `console.log(JSON.stringify([new Date(${JSON.stringify(texts[0])}), ...${JSON.stringify(texts)}.map(instantOf)]))`;
    const output = execFileSync(process.execPath, ['-r', 'ts-node/register/transpile-only', '-e', script], {
      cwd: join(__dirname, '..', '..'),
      env: { ...process.env, TZ: 'America/New_York' },
      encoding: 'utf8',
    });
    expect(JSON.parse(output)).toEqual([
      '2026-01-01T05:00:00.000Z',
      '2026-01-01T00:00:00.000Z',
      '2026-01-01T00:00:00.500Z',
      '2026-01-01T00:00:00.000Z',
      '2026-01-01T00:00:00.000Z',
      '2026-01-01T00:00:00.000Z',
      '2026-01-01T00:00:00.000Z',
      '2026-01-01T00:00:00.000Z',
      '2026-01-01T00:00:00.000Z',
    ]);
  });

  it('refuses a form that names no instant, and the ordinal and basic forms Date misreads', () => {
    for (const text of ['2024-W01-1', '2026-012', '20260112', '20260112T000000Z']) expect(() => instantOf(text)).toThrow(BadRequestException);
  });
});
