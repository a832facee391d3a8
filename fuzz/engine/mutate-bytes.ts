import type { Rng } from './rng.js';

/** Values that sit on the edges parsers get wrong: zero, one, sign bits, all ones. */
const INTERESTING_8 = [0, 1, 0x7f, 0x80, 0xff, 0x10, 0x20, 0x40];
const INTERESTING_16 = [0, 1, 0x7f, 0x80, 0xff, 0x100, 0x1ff, 0x7fff, 0x8000, 0xffff];
const INTERESTING_32 = [0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffffe, 0x10000, 24, 25, 0x1000];

/**
 * One libFuzzer-style edit of `input` (which it never changes): bit flips, byte and word
 * overwrites with edge values (both byte orders), inserts, deletes, duplicated ranges,
 * dictionary tokens and a splice with another input. Parsers of length-prefixed data mostly
 * fail on lying lengths, so word overwrites with small numbers near the real length come often.
 */
export function mutateBytes(rng: Rng, input: Uint8Array, other: Uint8Array, dictionary: readonly Uint8Array[], maxLen: number): Uint8Array {
  const n = input.length;
  const op = rng.below(13);
  if (n === 0 && op < 9) return insert(rng, input, randomBytes(rng, 1 + rng.skewed(16)), maxLen);
  switch (op) {
    case 0: {
      const out = input.slice();
      out[rng.below(n)]! ^= 1 << rng.below(8);
      return out;
    }
    case 1: {
      const out = input.slice();
      out[rng.below(n)] = rng.chance(0.5) ? rng.pick(INTERESTING_8) : rng.below(256);
      return out;
    }
    case 2:
    case 3: {
      const width = op === 2 ? 2 : 4;
      if (n < width) return input;
      const out = input.slice();
      const view = new DataView(out.buffer);
      const at = rng.below(n - width + 1);
      const le = rng.chance(0.5);
      const old = width === 2 ? view.getUint16(at, le) : view.getUint32(at, le);
      const pool = width === 2 ? INTERESTING_16 : INTERESTING_32;
      const v = rng.chance(0.4) ? rng.pick(pool) : rng.chance(0.5) ? old + rng.skewed(64) - 32 : rng.below(n + 64);
      if (width === 2) view.setUint16(at, v & 0xffff, le);
      else view.setUint32(at, v >>> 0, le);
      return out;
    }
    case 4: {
      const at = rng.below(n);
      const len = 1 + rng.skewed(Math.min(n - at, 256) - 1);
      return concat(input.subarray(0, at), input.subarray(at + len));
    }
    case 5:
      return input.subarray(0, rng.below(n));
    case 6: {
      const from = rng.below(n);
      const len = 1 + rng.skewed(Math.min(n - from, 256) - 1);
      return insert(rng, input, input.subarray(from, from + len), maxLen);
    }
    case 7: {
      const out = input.slice();
      const len = 1 + rng.skewed(Math.min(n, 16) - 1);
      const at = rng.below(n - len + 1);
      for (let i = 0; i < len; i++) out[at + i] = rng.below(256);
      return out;
    }
    case 8: {
      // Overwrite a range with a copy of another range (repeats structures, e.g. a TLV).
      const out = input.slice();
      const len = 1 + rng.skewed(Math.min(n, 64) - 1);
      out.set(input.subarray(rng.below(n - len + 1)).subarray(0, len), rng.below(n - len + 1));
      return out;
    }
    case 9:
    case 10: {
      if (dictionary.length === 0) return insert(rng, input, randomBytes(rng, 1 + rng.skewed(8)), maxLen);
      const token = rng.pick(dictionary);
      if (op === 9 || n < token.length) return insert(rng, input, token, maxLen);
      const out = input.slice();
      out.set(token, rng.below(n - token.length + 1));
      return out;
    }
    case 11: {
      // Crossover: a head of this input, a tail of another.
      if (other.length === 0) return input;
      return clamp(concat(input.subarray(0, rng.below(n + 1)), other.subarray(rng.below(other.length))), maxLen);
    }
    default:
      return insert(rng, input, randomBytes(rng, 1 + rng.skewed(32)), maxLen);
  }
}

function insert(rng: Rng, input: Uint8Array, piece: Uint8Array, maxLen: number): Uint8Array {
  const at = rng.below(input.length + 1);
  return clamp(concat(input.subarray(0, at), piece, input.subarray(at)), maxLen);
}

function randomBytes(rng: Rng, n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = rng.below(256);
  return out;
}

function clamp(b: Uint8Array, maxLen: number): Uint8Array {
  return b.length > maxLen ? b.subarray(0, maxLen) : b;
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
