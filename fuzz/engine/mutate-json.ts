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

type Container = Json[] | { [key: string]: Json };
const isContainer = (v: Json): v is Container => v !== null && typeof v === 'object';

/** A random node, by random descent: any depth is reachable, and it costs the depth, not the size. */
function descend(rng: Rng, root: Json): { path: Array<[Container, string | number]>; node: Json } {
  const path: Array<[Container, string | number]> = [];
  let node = root;
  while (isContainer(node) && rng.chance(0.8)) {
    const keys: Array<string | number> = Array.isArray(node) ? node.map((_, i) => i) : Object.keys(node);
    if (keys.length === 0) break;
    const key = rng.pick(keys);
    path.push([node, key]);
    node = (node as Record<string, Json>)[key as string]!;
  }
  return { path, node };
}

/** Sets an own property even for `__proto__`, as JSON.parse makes it. */
function put(o: Record<string, Json>, key: string, value: Json): void {
  if (key === '__proto__') Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  else o[key] = value;
}

function copy(c: Container): Container {
  if (Array.isArray(c)) return c.slice();
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(c)) put(out, k, v);
  return out;
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

const DELETE = Symbol('delete');

/** The node's replacement (never an edit in place: inputs share their subtrees). */
function edit(rng: Rng, v: Json, root: Json, other: Json, dict: JsonDictionary): Json | typeof DELETE {
  switch (rng.below(10)) {
    case 0:
    case 1:
      return scalar(rng, dict);
    case 2:
      return descend(rng, root).node;
    case 3:
      return descend(rng, other).node;
    case 4:
      return DELETE;
    case 5:
      if (Array.isArray(v)) {
        const out = v.slice();
        out.splice(rng.below(v.length + 1), 0, v.length && rng.chance(0.7) ? rng.pick(v) : scalar(rng, dict));
        return out;
      }
      if (isContainer(v)) {
        const out = copy(v) as Record<string, Json>;
        put(out, rng.pick(dict.keys), rng.chance(0.5) ? scalar(rng, dict) : descend(rng, rng.chance(0.5) ? root : other).node);
        return out;
      }
      return scalar(rng, dict);
    case 6:
      return rng.chance(0.5) ? [v] : { [rng.pick(dict.keys)]: v };
    case 7:
      if (typeof v === 'number') return rng.chance(0.5) ? v + rng.skewed(16) - 8 : rng.pick([-v, v * 2, v + 0.5, Math.floor(v / 2)]);
      if (typeof v === 'string' && v.length) return rng.chance(0.5) ? v.slice(0, rng.below(v.length)) : v + v;
      return scalar(rng, dict);
    case 8:
      return rng.chance(0.5) ? [] : {};
    default:
      // Type confusion: the same content in another type.
      return typeof v === 'string' ? (Number.isFinite(Number(v)) ? Number(v) : [v]) : typeof v === 'number' ? String(v) : JSON.stringify(v);
  }
}

/**
 * One structural edit of a parsed JSON value, answered as a new value that shares what it did not
 * change: a node replaced by an edge value or by another node (of this input or another), a key
 * added (hostile keys included) or removed, an element duplicated or dropped, a node wrapped in an
 * array or object, a number nudged, a string cut or doubled, a type swapped.
 */
export function mutateJson(rng: Rng, root: Json, other: Json, dict: JsonDictionary): Json {
  const { path, node } = descend(rng, root);
  let out = edit(rng, node, root, other, dict);
  for (let i = path.length - 1; i >= 0; i--) {
    const [container, key] = path[i]!;
    const c = copy(container);
    if (out === DELETE) {
      if (Array.isArray(c)) c.splice(key as number, 1);
      else delete c[key as string];
    } else if (Array.isArray(c)) c[key as number] = out;
    else put(c, key as string, out);
    out = c;
  }
  return out === DELETE ? root : out;
}

export type { Json };
