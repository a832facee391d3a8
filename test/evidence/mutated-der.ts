import fc from 'fast-check';
import { FleetError } from '../../shared/errors.js';

/** Seeds with up to 8 bytes changed and up to 63 cut from the end. */
export const mutatedFrom = (seeds: readonly Uint8Array[]): fc.Arbitrary<Uint8Array> =>
  fc
    .tuple(fc.constantFrom(...seeds), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }), fc.nat())
    .map(([seed, edits, cut]) => {
      const b = seed.slice(0, seed.length - (cut % 64));
      for (const [at, v] of edits) b[at % b.length] = v;
      return b;
    });

/**
 * Whether `parse` reads the bytes, or refuses them with a FleetError of `code`: anything else (a
 * TypeError, a RangeError from the ASN.1 library) is thrown on, and fails the property.
 */
export function readsOrRefuses(parse: (bytes: Uint8Array) => unknown, code: string): (bytes: Uint8Array) => boolean {
  return (bytes) => {
    try {
      parse(bytes);
      return true;
    } catch (err) {
      if (err instanceof FleetError && err.code === code) return true;
      throw err;
    }
  };
}
