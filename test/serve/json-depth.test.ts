import { describe, expect, it } from 'vitest';
import { nestsDeeperThan } from '../../verifier/http/json-depth.js';

describe('how deep a JSON text nests', () => {
  it('counts arrays and objects, not brackets inside strings or escaped quotes', () => {
    expect(nestsDeeperThan('{"a":[{"b":[1]}]}', 4)).toBe(false);
    expect(nestsDeeperThan('{"a":[{"b":[[1]]}]}', 4)).toBe(true);
    expect(nestsDeeperThan('{"a":"[[[[[[[[[["}', 2)).toBe(false);
    expect(nestsDeeperThan('{"a":"\\"[[[[[[","b":1}', 2)).toBe(false);
    expect(nestsDeeperThan('{"a":"\\\\"}[[[', 2)).toBe(true);
  });
});
