/**
 * Platform families (docs/api-rules.md §9.1): the CLI sends classifier tails
 * (`Microsoft :: Windows`, `GPU :: NVIDIA CUDA`), the frontend short names
 * (`Windows`, `CUDA`), the package manager its own. Each spelling belongs to
 * one family, compared ignoring case; filters and version choice compare
 * families, never raw strings.
 */
export const OS_FAMILIES = {
  windows: ['windows', 'win', 'win32', 'microsoft :: windows'],
  macos: ['macos', 'mac', 'darwin', 'macos :: macos x'],
  linux: ['linux', 'posix :: linux'],
} as const;

export const ACCELERATOR_FAMILIES = {
  cuda: ['cuda', 'nvidia', 'gpu :: nvidia cuda'],
  rocm: ['rocm', 'amd', 'gpu :: amd rocm'],
  metal: ['metal', 'mps', 'apple', 'gpu :: apple metal'],
  directml: ['directml', 'dml'],
  xpu: ['xpu', 'intel', 'gpu :: intel arc'],
  cpu: ['cpu'],
} as const;

export type PlatformFamilies = typeof OS_FAMILIES | typeof ACCELERATOR_FAMILIES;

/** A list holding this value (or no value at all) supports every platform. */
export const SUPPORTS_EVERY_PLATFORM = 'os independent';

/** How the host app's package manager names its installation; unknown or `other`: no OS filtering. */
const FORM_FACTOR_OS: Record<string, keyof typeof OS_FAMILIES> = {
  'desktop-win': 'windows',
  'git-windows': 'windows',
  'desktop-mac': 'macos',
  'git-mac': 'macos',
  'git-linux': 'linux',
};

/** A value as the families spell it: lower case, otherwise as sent (the catalog filter compares stored values so, in SQL). */
export function normalizePlatformValue(value: string): string {
  return value.toLowerCase();
}

/** Every spelling of the family `value` belongs to; empty for a value of no known family (it matches nothing). */
export function spellingsOfFamily(families: PlatformFamilies, value: string): readonly string[] {
  const normalized = normalizePlatformValue(value);
  const groups: ReadonlyArray<readonly string[]> = Object.values(families);
  return groups.find((spellings) => spellings.includes(normalized)) ?? [];
}

/** Whether a supported-platforms list (as stored, as sent) covers the family of `value`. */
export function supportsPlatform(list: readonly string[], families: PlatformFamilies, value: string): boolean {
  const listed = list.map(normalizePlatformValue);
  if (listed.length === 0 || listed.includes(SUPPORTS_EVERY_PLATFORM)) return true;
  const spellings = spellingsOfFamily(families, value);
  return listed.some((item) => spellings.includes(item));
}

/** The OS a form factor runs on (one of its spellings), or undefined when it implies none. */
export function osOfFormFactor(formFactor: string): string | undefined {
  return FORM_FACTOR_OS[normalizePlatformValue(formFactor)];
}
