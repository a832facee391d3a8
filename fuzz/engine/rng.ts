/** xoshiro128**: fast 32-bit integer arithmetic, seedable, so a run's choices replay from its seed. */
export class Rng {
  private s = new Uint32Array(4);

  constructor(seed: number) {
    // splitmix32 spreads one seed over the four words.
    let x = seed >>> 0;
    for (let i = 0; i < 4; i++) {
      x = (x + 0x9e3779b9) >>> 0;
      let z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      this.s[i] = (z ^ (z >>> 16)) >>> 0;
    }
  }

  u32(): number {
    const s = this.s;
    const result = Math.imul(rotl(Math.imul(s[1]!, 5), 7), 9) >>> 0;
    const t = s[1]! << 9;
    s[2]! ^= s[0]!;
    s[3]! ^= s[1]!;
    s[1]! ^= s[2]!;
    s[0]! ^= s[3]!;
    s[2]! ^= t;
    s[3] = rotl(s[3]!, 11);
    return result;
  }

  /** An integer in [0, n). */
  below(n: number): number {
    return n <= 1 ? 0 : this.u32() % n;
  }

  chance(p: number): boolean {
    return this.u32() < p * 0x1_0000_0000;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)]!;
  }

  /** In [0, max], small values far more often: most useful edits are small. */
  skewed(max: number): number {
    const bits = this.below(Math.ceil(Math.log2(max + 2)) + 1);
    return Math.min(max, this.below(2 ** bits));
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}
