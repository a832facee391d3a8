import { createPublicKey, type KeyObject } from 'node:crypto';
import { AsnParser } from '@peculiar/asn1-schema';
import { RSAPublicKey } from '@peculiar/asn1-rsa';
import type { SubjectPublicKeyInfo } from '@peculiar/asn1-x509';
import { errorMessage, ParseError } from '../errors.js';

/** A certificate's public key, whatever algorithm identifier it was stored under, and what it is in words. */
interface CertifiedKey {
  key: KeyObject;
  /** RSA-2048, ECC P-256, ... */
  description: string;
}

const RSA_OIDS = new Set([
  '1.2.840.113549.1.1.1', // rsaEncryption
  '1.2.840.113549.1.1.7', // id-RSAES-OAEP: how TPM 1.2 EK certificates (STM, Infineon, Nuvoton) name their key
]);
const EC_PUBLIC_KEY = '1.2.840.10045.2.1';
const CURVES: Record<string, string> = { prime256v1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521' };

const b64url = (b: ArrayBuffer): string => {
  const bytes = new Uint8Array(b);
  let i = 0;
  while (i < bytes.length - 1 && bytes[i] === 0) i++;
  return Buffer.from(bytes.subarray(i)).toString('base64url');
};

/**
 * The key as a KeyObject built from its numbers (the RSA modulus and exponent, the EC point), the
 * way fleet builds the TPM's EK from its public area: so its SubjectPublicKeyInfo export, and the
 * EK hash of it, is the same whether the certificate said rsaEncryption or RSAES-OAEP. OpenSSL
 * reads no key under RSAES-OAEP, which is why `openssl x509 -pubkey` fails on such certificates.
 */
export function certifiedKey(spki: SubjectPublicKeyInfo, spkiDer: Uint8Array): CertifiedKey {
  const oid = spki.algorithm.algorithm;
  try {
    if (RSA_OIDS.has(oid)) {
      const rsa = AsnParser.parse(spki.subjectPublicKey, RSAPublicKey);
      const key = createPublicKey({ key: { kty: 'RSA', n: b64url(rsa.modulus), e: b64url(rsa.publicExponent) }, format: 'jwk' });
      return { key, description: `RSA-${key.asymmetricKeyDetails!.modulusLength}` };
    }
    if (oid === EC_PUBLIC_KEY) {
      const jwk = createPublicKey({ key: Buffer.from(spkiDer), format: 'der', type: 'spki' }).export({ format: 'jwk' });
      const key = createPublicKey({ key: jwk, format: 'jwk' });
      const curve = key.asymmetricKeyDetails!.namedCurve!;
      return { key, description: `ECC ${CURVES[curve] ?? curve}` };
    }
  } catch (err) {
    throw new ParseError('ek-cert-malformed', `the certified public key does not decode: ${errorMessage(err)}`);
  }
  throw new ParseError('ek-cert-malformed', `the certified public key is of algorithm ${oid}, neither RSA nor EC`);
}
