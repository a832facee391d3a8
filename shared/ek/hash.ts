import { createHash } from 'node:crypto';
import { spkiDer, type TpmtPublic } from '../tpm/public.js';

/**
 * The EK hash: lowercase hex SHA-256 of the DER SubjectPublicKeyInfo of the EK public key (as
 * spire-tpm-plugin computes it). The same key gives the same hash whether it comes from the TPM
 * or from the EK certificate, so an operator reads it from a receiving scan with `fleet ek-cert`
 * (openssl cannot load the RSAES-OAEP keys of TPM 1.2-era certificates, nor an NV index read raw).
 */
export function ekHashOfSpki(spki: Uint8Array): string {
  return createHash('sha256').update(spki).digest('hex');
}

export function ekHash(ek: TpmtPublic): string {
  return ekHashOfSpki(spkiDer(ek));
}

/** What an approved hash must look like: 64 lowercase hex characters (the runbook's plan check). */
export const EK_HASH_PATTERN = /^[0-9a-f]{64}$/;
