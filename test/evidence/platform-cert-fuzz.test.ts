import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mutatedFrom, readsOrRefuses } from './mutated-der.js';
import { parsePlatformCertificate } from '../../shared/platform-cert/platform-certificate.js';
import { HIRS_PLATFORM_FILES, tcgCert } from './tcg-certs.js';

const parsesOrRefuses = readsOrRefuses(parsePlatformCertificate, 'platform-cert-malformed');

describe('platform certificates with bytes changed', () => {
  // The DER files: a PEM's changed bytes would mostly break its base64, not the certificate.
  const seeds = HIRS_PLATFORM_FILES.map((f) => new Uint8Array(tcgCert(f))).filter((b) => b[0] === 0x30);

  it('has DER seeds of both layouts', () => expect(seeds.length).toBeGreaterThanOrEqual(5));

  it('parse or are refused as platform-cert-malformed, never anything else', () => {
    const mutated = mutatedFrom(seeds);
    fc.assert(fc.property(mutated, parsesOrRefuses), { numRuns: 3000 });
  });

  it('every prefix of a certificate parses or is refused', () => {
    for (const der of seeds) for (let n = 0; n <= der.length; n += 13) expect(parsesOrRefuses(der.subarray(0, n))).toBe(true);
  });
});
