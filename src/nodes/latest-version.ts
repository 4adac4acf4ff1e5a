import { prerelease, rcompare } from 'semver';
import { INSTALLABLE } from './entities/node-version.entity';

export interface VersionCandidate {
  version: string;
  status: string;
  deprecated: boolean;
}

/** Newest semantic version first (1.10.0 before 1.9.0; releases before their pre-releases). */
export function bySemverDescending(a: { version: string }, b: { version: string }): number {
  return rcompare(a.version, b.version);
}

/**
 * The node's latest version: the highest semantic version among active,
 * non-deprecated versions; if every active version is deprecated, the highest
 * active one; otherwise none. Pre-releases count only when the candidate set
 * holds no release (as npm's `latest` tag behaves).
 */
export function pickLatestVersion<T extends VersionCandidate>(versions: readonly T[]): T | undefined {
  const active = versions.filter((v) => v.status === INSTALLABLE);
  const current = active.filter((v) => !v.deprecated);
  const candidates = current.length > 0 ? current : active;
  const releases = candidates.filter((v) => prerelease(v.version) === null);
  const pool = releases.length > 0 ? releases : candidates;
  return [...pool].sort(bySemverDescending)[0];
}
