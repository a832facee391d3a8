import { describe, expect, it } from 'vitest';
import { GuessLimit } from '../../verifier/install/guess-limit.js';

const limits = { perAddress: 3, perGroup: 5, total: 8, windowMs: 60_000, groups: { v4: 24, v6: 64 } };
const wrongs = (g: GuessLimit, address: string, n: number, at: number) => Array.from({ length: n }, () => g.wrong(address, at));

describe('the guess limit', () => {
  it('an address: past its share each wrong code is limited, the first of them marked to audit, and it is refused before its code is looked at', () => {
    const g = new GuessLimit(limits);
    expect(wrongs(g, '10.0.0.1', 3, 0).every((v) => !v.limited)).toBe(true);
    expect(g.before('10.0.0.1', 1000)).toEqual({ limited: true, scope: 'address', limit: 3, retryAfterS: 59, first: true });
    expect(g.wrong('10.0.0.1', 1000)).toEqual({ limited: true, scope: 'address', limit: 3, retryAfterS: 59, first: false });
    expect(g.before('10.0.0.2', 1000)).toEqual({ limited: false });
  });

  it('a group and the total: counted across addresses, an address under its share still looked at first', () => {
    const g = new GuessLimit(limits);
    wrongs(g, '10.0.0.1', 3, 0);
    wrongs(g, '10.0.0.2', 2, 0);
    expect(g.before('10.0.0.3', 0)).toEqual({ limited: false });
    expect(g.wrong('10.0.0.3', 0)).toMatchObject({ limited: true, scope: 'group', limit: 5, first: true });
    expect(g.wrong('10.0.0.4', 0)).toMatchObject({ limited: true, scope: 'group', first: false });
    wrongs(g, '10.1.0.1', 1, 0);
    expect(g.wrong('10.2.0.1', 0)).toMatchObject({ limited: true, scope: 'total', limit: 8, first: true });
  });

  it('an IPv6 /64 is one group, however many addresses it sends from', () => {
    const g = new GuessLimit(limits);
    const verdicts = Array.from({ length: 6 }, (_, i) => g.wrong(`fd00:0:0:1::${i + 1}`, 0));
    expect(verdicts.map((v) => v.limited)).toEqual([false, false, false, false, false, true]);
  });

  it('a new window forgets the last', () => {
    const g = new GuessLimit(limits);
    wrongs(g, '10.0.0.1', 3, 59_999);
    expect(g.before('10.0.0.1', 59_999).limited).toBe(true);
    expect(g.before('10.0.0.1', 60_000)).toEqual({ limited: false });
    expect(g.wrong('10.0.0.1', 60_000)).toEqual({ limited: false });
  });
});
