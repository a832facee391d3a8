import { createHash, X509Certificate } from 'node:crypto';
import { FleetError } from '../errors.js';
import { spkiDer, type TpmtPublic } from '../tpm/public.js';

/**
 * The EK hash: lowercase hex SHA-256 of the DER SubjectPublicKeyInfo of the EK public key (as
 * spire-tpm-plugin computes it). The same key gives the same hash whether it comes from the TPM
 * or from the EK certificate, so an operator can compute it from a receiving scan with openssl:
 *
 *   openssl x509 -inform DER -in ek.der -noout -pubkey | openssl pkey -pubin -outform DER | sha256sum
 */
export function ekHashOfSpki(spki: Uint8Array): string {
  return createHash('sha256').update(spki).digest('hex');
}

export function ekHash(ek: TpmtPublic): string {
  return ekHashOfSpki(spkiDer(ek));
}

/** The EK hash of the key an EK certificate (DER or PEM) certifies. */
export function ekHashOfCertificate(cert: Uint8Array | string): string {
  return describeEkCertificate(cert).ekHash;
}

/** An EK certificate's key hash, subject and issuer (as openssl prints them, one line each). */
export function describeEkCertificate(cert: Uint8Array | string): { ekHash: string; subject: string; issuer: string } {
  let x: X509Certificate;
  try {
    x = new X509Certificate(typeof cert === 'string' ? cert : Buffer.from(cert));
  } catch (err) {
    throw new FleetError('ek-cert-invalid', `the EK certificate does not parse: ${(err as Error).message}`);
  }
  const line = (dn: string) => dn.split('\n').filter(Boolean).join(', ');
  return { ekHash: ekHashOfSpki(new Uint8Array(x.publicKey.export({ type: 'spki', format: 'der' }))), subject: line(x.subject), issuer: line(x.issuer) };
}

/** What an approved hash must look like: 64 lowercase hex characters (the runbook's plan check). */
export const EK_HASH_PATTERN = /^[0-9a-f]{64}$/;
