import { pickLatestVersion, VersionCandidate } from '../latest-version';
import { appVersionFits, readAppVersion } from './app-version';
import { OS_FAMILIES, osOfFormFactor, supportsPlatform } from './platforms';

/** What the caller runs (docs/api-rules.md §9.1): each part absent when it asks for no filtering. */
export interface CompatibilityTarget {
  appVersion?: string;
  os?: string;
}

export interface CompatibilityCandidate extends VersionCandidate {
  supportedAppVersion: string | null;
  supportedOs: string[];
}

/** The target a catalog or install request names, or undefined when it names nothing to filter on. */
export function compatibilityTarget(appVersion: string | undefined, formFactor: string | undefined): CompatibilityTarget | undefined {
  const target: CompatibilityTarget = {
    appVersion: appVersion === undefined ? undefined : readAppVersion(appVersion),
    os: formFactor === undefined ? undefined : osOfFormFactor(formFactor),
  };
  return target.appVersion === undefined && target.os === undefined ? undefined : target;
}

/** What a catalog or install request says it runs on (`comfyui_version`, or its alias `app_version`, and `form_factor`). */
export function compatibilityTargetOf(query: { comfyui_version?: string; app_version?: string; form_factor?: string }): CompatibilityTarget | undefined {
  return compatibilityTarget(query.comfyui_version ?? query.app_version, query.form_factor);
}

/**
 * The version the target should install: the latest-version rule applied to
 * the versions that fit it (app version inside their range, OS supported);
 * undefined when none fits (the caller then keeps the usual latest version).
 */
export function pickCompatibleVersion<T extends CompatibilityCandidate>(versions: readonly T[], target: CompatibilityTarget): T | undefined {
  return pickLatestVersion(
    versions.filter(
      (version) =>
        (target.appVersion === undefined || appVersionFits(version.supportedAppVersion, target.appVersion)) &&
        (target.os === undefined || supportsPlatform(version.supportedOs, OS_FAMILIES, target.os)),
    ),
  );
}
