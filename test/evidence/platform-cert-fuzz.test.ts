import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FleetError } from '../../shared/errors.js';
import { parsePlatformCertificate } from '../../shared/platform-cert/platform-certificate.js';
import { HIRS_PLATFORM_FILES, tcgCert } from './tcg-certs.js';

/** Parses, or refuses with a typed error: anything else (a TypeError, a RangeError from the ASN.1 library) fails the property. */
function parsesOrRefuses(bytes: Uint8Array): boolean {
  try {
    parsePlatformCertificate(bytes);
    return true;
  } catch (err) {
    if (err instanceof FleetError && err.code === 'platform-cert-malformed') return true;
    throw err;
  }
}

describe('platform certificates with bytes changed', () => {
  // The DER files: a PEM's changed bytes would mostly break its base64, not the certificate.
  const seeds = HIRS_PLATFORM_FILES.map((f) => new Uint8Array(tcgCert(f))).filter((b) => b[0] === 0x30);

  it('has DER seeds of both layouts', () => expect(seeds.length).toBeGreaterThanOrEqual(5));

  it('parse or are refused as platform-cert-malformed, never anything else', () => {
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
    for (const der of seeds) for (let n = 0; n <= der.length; n += 13) expect(parsesOrRefuses(der.subarray(0, n))).toBe(true);
  });
});
