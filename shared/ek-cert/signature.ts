import { verify } from 'node:crypto';
import type { X509 } from './certificate.js';
import type { DistinguishedName } from './names.js';
import { certifiedKey } from './public-key.js';

/** The signature algorithms fleet checks: RSA PKCS #1 v1.5 and ECDSA, with SHA-1, -256, -384 or -512. */
const ALGORITHMS: Record<string, { name: string; hash: string }> = {
  '1.2.840.113549.1.1.5': { name: 'sha1WithRSAEncryption', hash: 'sha1' },
  '1.2.840.113549.1.1.11': { name: 'sha256WithRSAEncryption', hash: 'sha256' },
  '1.2.840.113549.1.1.12': { name: 'sha384WithRSAEncryption', hash: 'sha384' },
  '1.2.840.113549.1.1.13': { name: 'sha512WithRSAEncryption', hash: 'sha512' },
  '1.2.840.10045.4.1': { name: 'ecdsa-with-SHA1', hash: 'sha1' },
  '1.2.840.10045.4.3.2': { name: 'ecdsa-with-SHA256', hash: 'sha256' },
  '1.2.840.10045.4.3.3': { name: 'ecdsa-with-SHA384', hash: 'sha384' },
  '1.2.840.10045.4.3.4': { name: 'ecdsa-with-SHA512', hash: 'sha512' },
};

/**
 * What a signature covers and who made it: an X.509 certificate (its TBS bytes) or an attribute
 * certificate (its acinfo), neither of which needs more for its issuer to be found and checked.
 */
export interface Signed {
  tbs: Uint8Array;
  signatureAlgorithm: string;
  signature: Uint8Array;
  issuer: DistinguishedName;
}

/** The signature algorithm's name, or its OID when fleet does not know it. */
export function signatureAlgorithmName(cert: Pick<Signed, 'signatureAlgorithm'>): string {
  return ALGORITHMS[cert.signatureAlgorithm]?.name ?? cert.signatureAlgorithm;
}

export type SignatureCheck = 'verifies' | 'fails' | 'unsupported';

/** Whether `issuer`'s key verifies `cert`'s signature; 'unsupported' for an algorithm or issuer key fleet does not check. */
export function checkSignature(cert: Signed, issuer: X509): SignatureCheck {
  const algorithm = ALGORITHMS[cert.signatureAlgorithm];
  if (!algorithm) return 'unsupported';
  let key: ReturnType<typeof certifiedKey>['key'];
  try {
    key = certifiedKey(issuer.spki, issuer.spkiDer).key;
  } catch {
    return 'unsupported';
  }
  const family = algorithm.name.startsWith('ecdsa') ? 'ec' : 'rsa';
  if (key.asymmetricKeyType !== family) return 'fails';
  try {
    return verify(algorithm.hash, cert.tbs, key, cert.signature) ? 'verifies' : 'fails';
  } catch {
    // A signature of the wrong length or a malformed ECDSA value: it does not verify.
    return 'fails';
  }
}
