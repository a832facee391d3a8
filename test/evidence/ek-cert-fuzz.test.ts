import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FleetError } from '../../shared/errors.js';
import { parseEkCertificate } from '../../shared/ek-cert/ek-certificate.js';
import { HIRS_EK_FILES, tcgCert } from './tcg-certs.js';

/** Parses, or refuses with a typed error: anything else (a TypeError, a RangeError from the ASN.1 library) fails the property. */
function parsesOrRefuses(bytes: Uint8Array): boolean {
  try {
    parseEkCertificate(bytes);
    return true;
  } catch (err) {
    if (err instanceof FleetError && err.code === 'ek-cert-malformed') return true;
    throw err;
  }
}

describe('EK certificates with bytes changed', () => {
  const seeds = HIRS_EK_FILES.map((f) => new Uint8Array(tcgCert(f)));

  it('parse or are refused as ek-cert-malformed, never anything else', () => {
    const mutated = fc
      .tuple(fc.constantFrom(...seeds), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }), fc.nat())
      .map(([seed, edits, cut]) => {
        const b = seed.slice(0, seed.length - (cut % 64));
        for (const [at, v] of edits) b[at % b.length] = v;
        return b;
      });
    fc.assert(fc.property(mutated, parsesOrRefuses), { numRuns: 3000 });
  });

  it('every prefix of a certificate parses or is refused', () => {
    const der = seeds[0]!;
    for (let n = 0; n <= der.length; n += 7) expect(parsesOrRefuses(der.subarray(0, n))).toBe(true);
  });
});
