import { type KeyObject, X509Certificate } from 'node:crypto';
import { ekHashOfSpki } from '../ek/hash.js';
import { parseX509, type X509 } from './certificate.js';
import { certifiedKey } from './public-key.js';
import { type SecurityAssertions, securityAssertions } from './security-assertions.js';
import { type StoredForm, unwrapStored } from './stored.js';
import { type TpmNames, tpmNames } from './tpm-names.js';
import { type TpmSpec, tpmSpec } from './tpm-spec.js';

/** An EK certificate read: the X.509 parts, the key it certifies and its EK hash, and what it says of the TPM. */
export interface EkCertificate {
  stored: StoredForm;
  cert: X509;
  /** RSA-2048, ECC P-256, ... */
  key: string;
  /** The EK hash of the certified key, computed as for the TPM's own EK (shared/ek/hash.ts): equal when the certificate is the TPM's. */
  ekHash: string;
  tpm: TpmNames;
  spec: TpmSpec | null;
  assertions: SecurityAssertions | null;
}

/** Reads an EK certificate as a TPM's NV index or a file holds it (see unwrapStored); bad input is ek-cert-malformed. */
export function parseEkCertificate(bytes: Uint8Array): EkCertificate {
  const { der, form } = unwrapStored(bytes);
  const cert = parseX509(der);
  const { key, description } = certifiedKey(cert.spki, cert.spkiDer);
  return {
    stored: form,
    cert,
    key: description,
    ekHash: ekHashOfSpki(new Uint8Array(key.export({ type: 'spki', format: 'der' }))),
    tpm: tpmNames(cert),
    spec: tpmSpec(cert),
    assertions: securityAssertions(cert),
  };
}

/** The EK hash of the key an EK certificate certifies, in any form parseEkCertificate reads (ek-cert-malformed when it does not). */
export function ekHashOfCertificate(cert: Uint8Array | string): string {
  return parseEkCertificate(typeof cert === 'string' ? Buffer.from(cert) : cert).ekHash;
}

/**
 * What admission needs of an EK certificate, fast: its DER and the EK hash of the key it
 * certifies. OpenSSL reads the certificates it can (a fraction of a millisecond, against about
 * one for the full reader), and the full reader the rest (RSAES-OAEP keys); the hash is the same
 * either way, the key's SPKI as the TPM's EK gives it. What the certificate names beside its key
 * is read in full only where it is shown (fleet attest approve).
 */
export function certifiedEkHash(bytes: Uint8Array): { der: Uint8Array; ekHash: string } {
  const { der } = unwrapStored(bytes);
  let key: KeyObject | null = null;
  try {
    key = new X509Certificate(der).publicKey;
  } catch {
    // not one OpenSSL reads: the full reader says why, or reads it
  }
  if (key && (key.asymmetricKeyType === 'rsa' || key.asymmetricKeyType === 'ec'))
    return { der, ekHash: ekHashOfSpki(new Uint8Array(key.export({ type: 'spki', format: 'der' }))) };
  return { der, ekHash: parseEkCertificate(der).ekHash };
}
