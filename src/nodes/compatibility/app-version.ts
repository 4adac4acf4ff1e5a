import { coerce, satisfies, validRange } from 'semver';

/**
 * The host app's version as its package manager reports it, read leniently
 * (docs/api-rules.md §9.1): `v0.3.60-3-gabc123` (git describe) is 0.3.60.
 * Undefined for `unknown` or anything with no version in it: no filtering.
 */
export function readAppVersion(text: string): string | undefined {
  return coerce(text)?.version;
}

/**
 * Whether a version's `supported_app_version` range (npm semver syntax) is
 * satisfied by the app version. No range, or an empty one, fits every app;
 * a range that is not valid semver syntax fits none (the field is a free
 * string, stored as sent).
 */
export function appVersionFits(range: string | null, appVersion: string): boolean {
  if (range === null || range.trim() === '') return true;
  return validRange(range) !== null && satisfies(appVersion, range);
}
