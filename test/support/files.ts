import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Every file under `dir`, relative to it, sorted (directories left out: an empty tmp/ may stay). */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}
