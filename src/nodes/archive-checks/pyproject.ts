import { clean } from 'semver';
import { parse } from 'smol-toml';
import { Finding, finding, quote } from './findings';

/** `[project] version` of a pyproject.toml, when it is valid TOML and has one (a `dynamic` version has none). */
export function projectVersion(toml: string): string | undefined {
  let document: Record<string, unknown>;
  try {
    document = parse(toml);
  } catch {
    return undefined;
  }
  const { project } = document;
  if (typeof project !== 'object' || project === null) return undefined;
  const { version } = project as Record<string, unknown>;
  return typeof version === 'string' ? version : undefined;
}

/** A release of numbers only (PEP 440's `1.0`), with its trailing zeros dropped: `1.0` and `1.0.0` are the same release. */
function numericRelease(version: string): string | undefined {
  return /^\d+(?:\.\d+)*$/.test(version) ? version.split('.').map(Number).join('.').replace(/(?:\.0)+$/, '') : undefined;
}

/**
 * Whether two versions are the same: the same text, the same semantic version once cleaned
 * (`v1.2.0`, `1.2.0+build` and `1.2.0` are one), or the same release of numbers only (`1.2` and
 * `1.2.0`, as PEP 440 compares them). Other spellings (PEP 440's `1.2.0rc1` against semver's
 * `1.2.0-rc.1`) count as different; the finding is information only.
 */
export function sameVersion(a: string, b: string): boolean {
  if (a === b) return true;
  const [cleanA, cleanB] = [clean(a), clean(b)];
  if (cleanA !== null && cleanA === cleanB) return true;
  const [releaseA, releaseB] = [numericRelease(a.trim()), numericRelease(b.trim())];
  return releaseA !== undefined && releaseA === releaseB;
}

/** The version-mismatch finding for a pack's pyproject.toml (`file`), if its version is not the published one. */
export function versionMismatch(toml: string, file: string, published: string): Finding | undefined {
  const version = projectVersion(toml);
  if (version === undefined || sameVersion(version, published)) return undefined;
  return finding('version-mismatch', `${quote(file)} says version ${quote(version)}, but the version was published as ${quote(published)}`, file);
}
