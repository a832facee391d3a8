import { generateKeyPairSync } from 'node:crypto';
import { RSAPublicKey } from '@peculiar/asn1-rsa';
import { AsnParser } from '@peculiar/asn1-schema';
import { Certificate } from '@peculiar/asn1-x509';
import { describe, expect, it } from 'vitest';
import { ekHash } from '../../shared/ek/hash.js';
import { unwrapStored } from '../../shared/ek-cert/stored.js';
import { marshalPublic, type RsaPublic } from '../../shared/tpm/public.js';
import { ekTemplateRsa } from '../../shared/tpm/templates.js';
import type { StartRequest } from '../../shared/wire/schemas.js';
import { checkEks } from '../../verifier/attest/keys.js';
import { HIRS_EK_FILES, tcgCert } from './tcg-certs.js';

/**
 * The EK certificates of real TPMs reach admission as the agent sends them: the whole NV index,
 * TCG header and padding included, RSAES-OAEP keys (the TPM 1.2-era makers') as they are. A TPM
 * whose certificate certifies its EK is let on; one whose certificate certifies another key, or
 * does not read, is refused ek-cert-mismatch, saying which.
 */

/** The TPM's EK as the TCG template L-1 makes it, with the modulus `n`. */
function rsaEk(n: Uint8Array): RsaPublic {
  return { ...ekTemplateRsa(), unique: n };
}

/** The modulus of a certificate's RSA key, read with the ASN.1 library itself (whatever OID the certificate names its key by). */
function modulusOf(file: string): Uint8Array {
  // The DER as fleet's reader finds it (ek-cert-hirs.test.ts holds it to HIRS's files).
  const { der } = unwrapStored(tcgCert(file));
  const spki = AsnParser.parse(der, Certificate).tbsCertificate.subjectPublicKeyInfo;
  const n = new Uint8Array(AsnParser.parse(spki.subjectPublicKey, RSAPublicKey).modulus);
  return n[0] === 0 ? n.subarray(1) : n;
}

function request(pub: RsaPublic, certificate: Uint8Array | null): StartRequest {
  return {
    serial: 'SN-HIRS-1',
    mac: '52:54:00:12:34:56',
    eks: [
      { kind: 'rsa2048', public: Buffer.from(marshalPublic(pub)).toString('base64'), certificate: certificate && Buffer.from(certificate).toString('base64') },
    ],
    ak: '',
  };
}

describe.each(HIRS_EK_FILES)('a TPM that sends the EK certificate %s as its NV index holds it', (file) => {
  const bytes = tcgCert(file);
  const pub = rsaEk(modulusOf(file));

  it('is let on: the certificate certifies its EK', () => {
    const [ek] = checkEks(request(pub, bytes));
    expect(ek!.hash).toBe(ekHash(pub));
    expect(ek!.certificate).not.toBeNull();
  });

  it('is refused ek-cert-mismatch when its EK is another key, naming both hashes', () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'jwk' });
    const otherPub = rsaEk(Buffer.from(other.n!, 'base64url'));
    expect(() => checkEks(request(otherPub, bytes))).toThrow(
      expect.objectContaining({
        code: 'ek-cert-mismatch',
        message: expect.stringMatching(new RegExp(`certifies [0-9a-f]{64}, not the EK ${ekHash(otherPub)}$`)),
      }),
    );
  });
});

describe('an EK certificate that does not read', () => {
  const file = 'certificates/ek_cert_with_padded_bytes.cer';
  const pub = rsaEk(modulusOf(file));

  it.each([
    ['cut off', tcgCert(file).subarray(0, 500), /cut off|runs \d+ bytes past/],
    ['no certificate at all', Buffer.from('not a certificate'), /does not start with a DER SEQUENCE/],
    ['a partial NV certificate', Buffer.from([0x10, 0x01, 0x01, 0x00, 0x10, 0x10, 0x02, 0x30, 0x82]), /partial certificate/],
  ])('is refused ek-cert-mismatch, saying why it does not read: %s', (_, bytes, why) => {
    let err: unknown;
    try {
      checkEks(request(pub, bytes));
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 'ek-cert-mismatch', message: expect.stringMatching(/^the rsa2048 EK certificate does not read: /) });
    expect((err as Error).message).toMatch(why);
  });
});
