import { X509Certificate } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { certifiedEkHash, parseEkCertificate } from '../../shared/ek-cert/ek-certificate.js';
import { unwrapStored } from '../../shared/ek-cert/stored.js';
import { goldenTpm } from '../swtpm/provision.js';
import { HIRS_EK_FILES, tcgCert } from './tcg-certs.js';

/** Whether OpenSSL reads the certificate and its key (else admission's fast reader hands it to the full one). */
function opensslReads(bytes: Uint8Array): boolean {
  try {
    const t = new X509Certificate(unwrapStored(bytes).der).publicKey.asymmetricKeyType;
    return t === 'rsa' || t === 'ec';
  } catch {
    return false;
  }
}

/** The same DER and EK hash as the full reader's. */
const readsAlike = (bytes: Uint8Array) => {
  const full = parseEkCertificate(bytes);
  expect(certifiedEkHash(bytes)).toEqual({ der: full.cert.der, ekHash: full.ekHash });
};

describe("admission's reading of an EK certificate", () => {
  // HIRS's are RSAES-OAEP keys (the full reader's); swtpm's rsaEncryption and EC keys (OpenSSL's).
  it.each(HIRS_EK_FILES)('%s: as the full reader reads it', (name) => {
    const bytes = tcgCert(name);
    expect(opensslReads(bytes)).toBe(false);
    readsAlike(bytes);
  });

  let swtpm: { rsa: Buffer; ecc: Buffer };
  beforeAll(async () => {
    const t = await goldenTpm('a');
    swtpm = { rsa: t.ekCertRsaDer, ecc: t.ekCertEccDer };
  }, 120_000);

  it("swtpm's RSA and ECC EK certificates, as its NV holds them: as OpenSSL reads them", () => {
    for (const bytes of [swtpm.rsa, swtpm.ecc]) {
      expect(opensslReads(bytes)).toBe(true);
      readsAlike(bytes);
    }
  });
});
