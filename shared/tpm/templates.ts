import { fromHex } from '../bytes/hex.js';
import { TPM_ALG, TPM_ECC, TPMA_OBJECT as A } from './constants.js';
import type { EccPublic, RsaPublic, TpmtPublic } from './public.js';

/**
 * PolicySecret(TPM_RH_ENDORSEMENT): the authPolicy of the TCG default EK templates (TCG EK
 * Credential Profile 2.0, B.3.3). Using an EK therefore needs a policy session that ran
 * TPM2_PolicySecret against the endorsement hierarchy.
 */
export const EK_AUTH_POLICY = fromHex('837197674484b3f81a90cc8d46a5d724fd52d76e06520b64f2a1da1b331469aa');

/** fixedTPM, fixedParent, sensitiveDataOrigin, adminWithPolicy, restricted, decrypt = 0x000300b2. */
export const EK_ATTRIBUTES = A.fixedTPM | A.fixedParent | A.sensitiveDataOrigin | A.adminWithPolicy | A.restricted | A.decrypt;

const AES128_CFB = { alg: TPM_ALG.AES, keyBits: 128, mode: TPM_ALG.CFB };

/** Template L-1: RSA 2048, AES-128-CFB, 256 zero bytes of unique (EK Credential Profile B.3.3). */
export function ekTemplateRsa(): RsaPublic {
  return {
    type: 'rsa',
    nameAlg: TPM_ALG.SHA256,
    attributes: EK_ATTRIBUTES,
    authPolicy: EK_AUTH_POLICY,
    symmetric: AES128_CFB,
    scheme: { scheme: TPM_ALG.NULL },
    keyBits: 2048,
    exponent: 0,
    unique: new Uint8Array(256),
  };
}

/** Template L-2: ECC NIST P-256, AES-128-CFB, 32 zero bytes each of x and y (B.3.4). */
export function ekTemplateEcc(): EccPublic {
  return {
    type: 'ecc',
    nameAlg: TPM_ALG.SHA256,
    attributes: EK_ATTRIBUTES,
    authPolicy: EK_AUTH_POLICY,
    symmetric: AES128_CFB,
    scheme: { scheme: TPM_ALG.NULL },
    curve: TPM_ECC.NIST_P256,
    kdf: { scheme: TPM_ALG.NULL },
    x: new Uint8Array(32),
    y: new Uint8Array(32),
  };
}

/**
 * A template with an EK nonce from NV applied (EK Credential Profile 2.0, 2.2.1.5.1): the nonce
 * fills the start of the unique field, the rest stays zero.
 */
export function withEkNonce(t: TpmtPublic, nonce: Uint8Array): TpmtPublic {
  if (t.type === 'rsa') {
    const unique = new Uint8Array(t.unique.length);
    unique.set(nonce.subarray(0, unique.length));
    return { ...t, unique };
  }
  const x = new Uint8Array(t.x.length);
  x.set(nonce.subarray(0, x.length));
  return { ...t, x };
}

/**
 * The attestation key: a restricted signing key bound to this TPM. Only a key with these
 * attributes can sign a quote the verifier believes: restricted means it signs only digests the
 * TPM computed itself (never an outside digest that starts with TPM_GENERATED_VALUE). noDA: its
 * auth is empty and it lives one boot, so dictionary-attack protection guards nothing, while a
 * DA-protected key used in a boot that ends without TPM2_Shutdown (every HookOS boot: a hard
 * power cycle, or the reboot action's sysrq) counts as a failure and locks the TPM out after a few.
 */
export const AK_ATTRIBUTES = A.fixedTPM | A.fixedParent | A.sensitiveDataOrigin | A.userWithAuth | A.noDA | A.restricted | A.sign;

export type AkKind = 'ecc' | 'rsa';

export function akTemplate(kind: AkKind): TpmtPublic {
  if (kind === 'ecc') {
    return {
      type: 'ecc',
      nameAlg: TPM_ALG.SHA256,
      attributes: AK_ATTRIBUTES,
      authPolicy: new Uint8Array(0),
      symmetric: null,
      scheme: { scheme: TPM_ALG.ECDSA, hashAlg: TPM_ALG.SHA256 },
      curve: TPM_ECC.NIST_P256,
      kdf: { scheme: TPM_ALG.NULL },
      x: new Uint8Array(0),
      y: new Uint8Array(0),
    };
  }
  return {
    type: 'rsa',
    nameAlg: TPM_ALG.SHA256,
    attributes: AK_ATTRIBUTES,
    authPolicy: new Uint8Array(0),
    symmetric: null,
    scheme: { scheme: TPM_ALG.RSASSA, hashAlg: TPM_ALG.SHA256 },
    keyBits: 2048,
    exponent: 0,
    unique: new Uint8Array(0),
  };
}
