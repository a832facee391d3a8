import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mutatedFrom, readsOrRefuses } from './mutated-der.js';
import { parseEkCertificate } from '../../shared/ek-cert/ek-certificate.js';
import { HIRS_EK_FILES, tcgCert } from './tcg-certs.js';

const parsesOrRefuses = readsOrRefuses(parseEkCertificate, 'ek-cert-malformed');

describe('EK certificates with bytes changed', () => {
  const seeds = HIRS_EK_FILES.map((f) => new Uint8Array(tcgCert(f)));

  it('parse or are refused as ek-cert-malformed, never anything else', () => {
    const mutated = mutatedFrom(seeds);
    fc.assert(fc.property(mutated, parsesOrRefuses), { numRuns: 3000 });
  });

  it('every prefix of a certificate parses or is refused', () => {
    const der = seeds[0]!;
    for (let n = 0; n <= der.length; n += 7) expect(parsesOrRefuses(der.subarray(0, n))).toBe(true);
  });
});
