/**
 * The JSON merge patch (RFC 7386) that turns `original` into `updated`, as controller-runtime's
 * client.MergeFrom computes it for Tinkerbell's controller: changed and new keys, null for removed
 * ones, objects compared key by key, arrays replaced whole.
 */
type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function mergePatch(original: unknown, updated: unknown): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  const a = isObject(original) ? original : {};
  const b = isObject(updated) ? updated : {};
  for (const [k, v] of Object.entries(b)) {
    if (v === undefined) continue;
    const o = a[k];
    if (isObject(o) && isObject(v)) {
      const sub = mergePatch(o, v);
      if (Object.keys(sub).length) patch[k] = sub;
    } else if (JSON.stringify(o) !== JSON.stringify(v)) {
      patch[k] = v as Json;
    }
  }
  for (const k of Object.keys(a)) if (a[k] !== undefined && (!(k in b) || b[k] === undefined)) patch[k] = null;
  return patch;
}

/** `patch` applied to `target` (RFC 7386): null removes a key, objects merge, anything else replaces. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = applyMergePatch(out[k], v);
  }
  return out;
}
