import type { X509 } from './certificate.js';
import { type DistinguishedName, nameText, sameName } from './names.js';
import { checkSignature, type Signed, signatureAlgorithmName } from './signature.js';

/** A CA certificate the operator supplied, with where it came from (a file name, and #N for the Nth certificate of a PEM bundle). */
export interface CaCertificate {
  cert: X509;
  source: string;
}

export type ChainFailureReason = 'no-issuer' | 'self-signature-fails' | 'signature-fails' | 'unsupported-signature' | 'not-a-ca' | 'too-long';

export interface ChainFailure {
  reason: ChainFailureReason;
  /** The certificate whose issuer was sought: null for the one verified (an EK or platform certificate), else the CA's source. */
  of: string | null;
  issuer: DistinguishedName;
  /** The CA certificate that was tried, when one carried the issuer's name. */
  candidate: string | null;
  signatureAlgorithm: string;
}

/** Verified: the CA certificates from the verified certificate's issuer up to a self-signed root, the root last. */
export type ChainResult = { verified: true; path: CaCertificate[] } | { verified: false; path: CaCertificate[]; failure: ChainFailure };

const MAX_CAS = 8;

/**
 * Follows the issuer of an EK certificate, or of a platform (attribute) certificate, through the
 * operator's CA certificates up to a self-signed one, as HIRS does: each step a CA whose subject is the issuer's name (in any RDN order) and
 * whose key verifies the signature. A self-signed certificate whose own signature does not verify
 * is no root: its issuer is sought in turn. Unlike HIRS, every CA on the way must be one
 * (basicConstraints cA, keyUsage keyCertSign when present). Validity dates are not part of it:
 * validityAt reports them. When no path holds, the failure reported is the one that got furthest.
 */
export function verifyChain(leaf: Signed, pool: CaCertificate[]): ChainResult {
  return extend(leaf, null, [], pool);
}

/** `of`: the CA certificate whose issuer is sought, or null for the leaf (which may have no subject: an attribute certificate). */
function extend(cert: Signed, of: CaCertificate | null, path: CaCertificate[], pool: CaCertificate[]): ChainResult {
  const fail = (reason: ChainFailureReason, candidate: string | null): ChainResult => ({
    verified: false,
    path,
    failure: { reason, of: of?.source ?? null, issuer: cert.issuer, candidate, signatureAlgorithm: signatureAlgorithmName(cert) },
  });
  if (path.length >= MAX_CAS) return fail('too-long', null);
  const candidates = pool.filter((ca) => sameName(ca.cert.subject, cert.issuer) && !path.includes(ca));
  if (candidates.length === 0) return fail(of !== null && sameName(of.cert.subject, cert.issuer) ? 'self-signature-fails' : 'no-issuer', null);
  let best: ChainResult | null = null;
  for (const ca of candidates) {
    const signature = checkSignature(cert, ca.cert);
    let result: ChainResult;
    if (signature !== 'verifies') result = fail(signature === 'fails' ? 'signature-fails' : 'unsupported-signature', ca.source);
    else if (!ca.cert.mayIssue) result = fail('not-a-ca', ca.source);
    else if (selfSigned(ca.cert)) return { verified: true, path: [...path, ca] };
    else result = extend(ca.cert, ca, [...path, ca], pool);
    if (result.verified) return result;
    if (!best || result.path.length > best.path.length) best = result;
  }
  return best!;
}

function selfSigned(cert: X509): boolean {
  return sameName(cert.subject, cert.issuer) && checkSignature(cert, cert) === 'verifies';
}

/** The words for a chain that does not verify: defined once, for every part that shows it; `leaf` names the certificate verified. */
export function chainFailureText(f: ChainFailure, leaf = 'the EK certificate'): string {
  const of = f.of ?? leaf;
  const issuer = nameText(f.issuer) || '(an empty name)';
  switch (f.reason) {
    case 'no-issuer':
      return `no CA certificate is named ${issuer}, the issuer of ${of}`;
    case 'self-signature-fails':
      return `${of} names itself as its issuer, but its own key does not verify its signature, so it is no root`;
    case 'signature-fails':
      return `${f.candidate} is named ${issuer}, the issuer of ${of}, but its key does not verify the signature`;
    case 'unsupported-signature':
      return `${f.candidate} is named ${issuer}, the issuer of ${of}, but fleet cannot check that signature (${f.signatureAlgorithm}, RSA PKCS #1 v1.5 and ECDSA with SHA-1 to SHA-512 only)`;
    case 'not-a-ca':
      return `${f.candidate} verifies the signature of ${of} but is not a CA (no basicConstraints cA, or keyUsage without keyCertSign)`;
    case 'too-long':
      return `the chain from ${of} runs past ${MAX_CAS} CA certificates`;
  }
}

export type Validity = 'valid' | 'expired' | 'not-yet-valid';

/** Where `at` falls in the certificate's validity period. */
export function validityAt(cert: Pick<X509, 'notBefore' | 'notAfter'>, at: Date): Validity {
  if (at < cert.notBefore) return 'not-yet-valid';
  return at > cert.notAfter ? 'expired' : 'valid';
}

/** A validity as the operator reads it. */
export const VALIDITY_WORDS: Readonly<Record<Validity, string>> = { valid: 'valid', expired: 'expired', 'not-yet-valid': 'not yet valid' };

/** A certificate's date as the lines show it: the day, in UTC. */
export const day = (d: Date): string => d.toISOString().slice(0, 10);
