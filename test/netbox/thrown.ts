import { expect } from 'vitest';
import { NetBoxError } from '../../verifier/netbox/errors.js';

/** The NetBoxError `f` throws (the test fails if it throws nothing, or something else). */
export function thrown(f: () => unknown): NetBoxError {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(NetBoxError);
    return err as NetBoxError;
  }
  throw new Error('expected a throw');
}
