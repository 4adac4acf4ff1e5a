import { isPlainObject } from './plain-object';

/**
 * JSON merge-patch (RFC 7396 §2, MergePatch): an object in the patch is
 * merged into the target's, member by member, recursively; a null member
 * removes the target's; any other value replaces the target. Keys that
 * reach prototypes never get this far (the validation pipe refuses them).
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return patch;
  const merged: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  for (const [name, value] of Object.entries(patch)) {
    if (value === null) delete merged[name];
    else merged[name] = mergePatch(merged[name], value);
  }
  return merged;
}
