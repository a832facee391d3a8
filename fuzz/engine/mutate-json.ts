import type { Rng } from './rng.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Keys that trip code treating parsed JSON as a plain record: prototype names, coercion hooks. */
const HOSTILE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'toJSON', 'hasOwnProperty', 'length', 'then'];
const NUMBERS = [0, -0, 1, -1, 0.5, 255, 256, 65535, 65536, 2 ** 31, 2 ** 32, 2 ** 53, -(2 ** 53), 1e21, 1e308, -1e308, 5e-324];
const STRINGS = ['', ' ', 'a', '0', '-1', 'null', 'true', '\u0000', '\ud800', '\u2028', 'é', '1970-01-01T00:00:00Z', 'not a date', '%s', '../'];

/** What the mutator draws from besides its own edge values: keys and strings harvested from the seeds. */
export interface JsonDictionary {
  keys: string[];
  strings: string[];
}

export function harvest(values: unknown[]): JsonDictionary {
  const keys = new Set<string>(HOSTILE_KEYS);
  const strings = new Set<string>(STRINGS);
  const walk = (v: unknown): void => {
    if (typeof v === 'string') {
      if (v.length <= 64) strings.add(v);
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        keys.add(k);
        walk(child);
      }
    }
  };
  values.forEach(walk);
  return { keys: [...keys], strings: [...strings] };
}

interface Slot {
  parent: Json[] | Record<string, Json> | null;
  key: string | number;
  value: Json;
}

/** Every node with the container that holds it; the root's parent is null. */
function slots(root: Json): Slot[] {
  const out: Slot[] = [{ parent: null, key: '', value: root }];
  for (let i = 0; i < out.length && out.length < 20_000; i++) {
    const v = out[i]!.value;
    if (Array.isArray(v)) v.forEach((child, k) => out.push({ parent: v, key: k, value: child }));
    else if (v !== null && typeof v === 'object') for (const [k, child] of Object.entries(v)) out.push({ parent: v, key: k, value: child });
  }
  return out;
}

/** Sets an own property even for `__proto__`, as JSON.parse makes it. */
function put(o: Record<string, Json>, key: string, value: Json): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}

function scalar(rng: Rng, dict: JsonDictionary): Json {
  switch (rng.below(6)) {
    case 0:
      return null;
    case 1:
      return rng.chance(0.5);
    case 2:
      return rng.chance(0.5) ? rng.pick(NUMBERS) : rng.skewed(1 << 20) - (rng.chance(0.1) ? 1 << 19 : 0);
    case 3:
      return rng.pick(dict.strings);
    case 4:
      return rng.chance(0.1) ? 'A'.repeat(1 + rng.skewed(100_000)) : rng.pick(STRINGS);
    default:
      return rng.pick(dict.strings) + rng.pick(STRINGS);
  }
}

/**
 * One structural edit of a parsed JSON value (edited in place): a node replaced by an edge value
 * or another node's copy, a key added (hostile keys included) or removed, an element duplicated
 * or dropped, a node wrapped in an array or object, a number nudged, a subtree from another input.
 */
export function mutateJson(rng: Rng, root: Json, other: Json, dict: JsonDictionary): Json {
  const all = slots(root);
  const s = rng.pick(all);
  const replace = (v: Json): Json => {
    if (s.parent === null) return v;
    if (Array.isArray(s.parent)) s.parent[s.key as number] = v;
    else put(s.parent, s.key as string, v);
    return root;
  };
  const v = s.value;
  switch (rng.below(10)) {
    case 0:
    case 1:
      return replace(scalar(rng, dict));
    case 2:
      return replace(structuredClone(rng.pick(all).value));
    case 3:
      return replace(structuredClone(rng.pick(slots(other)).value));
    case 4:
      if (s.parent === null) return root;
      if (Array.isArray(s.parent)) s.parent.splice(s.key as number, 1);
      else delete s.parent[s.key as string];
      return root;
    case 5:
      if (Array.isArray(v)) {
        if (v.length) v.splice(rng.below(v.length + 1), 0, structuredClone(rng.pick(v)));
        else v.push(scalar(rng, dict));
        return root;
      }
      if (v !== null && typeof v === 'object') {
        put(v, rng.pick(dict.keys), rng.chance(0.5) ? scalar(rng, dict) : structuredClone(rng.pick(all).value));
        return root;
      }
      return replace(scalar(rng, dict));
    case 6:
      return replace(rng.chance(0.5) ? [v] : { [rng.pick(dict.keys)]: v });
    case 7:
      if (typeof v === 'number') return replace(rng.chance(0.5) ? v + rng.skewed(16) - 8 : rng.pick([-v, v * 2, v + 0.5, Math.floor(v / 2)]));
      if (typeof v === 'string' && v.length) return replace(rng.chance(0.5) ? v.slice(0, rng.below(v.length)) : v + v);
      return replace(scalar(rng, dict));
    case 8:
      return replace(rng.chance(0.5) ? [] : {});
    default:
      // Type confusion: the same content in another type.
      return replace(typeof v === 'string' ? (Number.isFinite(Number(v)) ? Number(v) : [v]) : typeof v === 'number' ? String(v) : JSON.stringify(v));
  }
}

export type { Json };
