import type { KeyObject } from 'node:crypto';
import { errorMessage } from '../../shared/errors.js';
import { ekHash } from '../../shared/ek/hash.js';
import { certifiedEkHash } from '../../shared/ek-cert/ek-certificate.js';
import { HASHES, TPM_ALG, TPM_ECC, TPMA_OBJECT as A } from '../../shared/tpm/constants.js';
import { objectName, parsePublic, publicKeyObject, type TpmtPublic } from '../../shared/tpm/public.js';
import type { EkKind, StartRequest } from '../../shared/wire/schemas.js';
import type { ClaimCertificate } from '../state/claim.js';
import { Refusal } from './refusal.js';

/** An EK the agent claims, checked for shape; the TPM has not proven it yet. */
export interface ClaimedEk {
  kind: EkKind;
  pub: TpmtPublic;
  hash: string;
  /** The certificate that came with it (it certifies this key; its maker is not checked). */
  certificate: ClaimCertificate | null;
}

export interface CheckedAk {
  pub: TpmtPublic;
  key: KeyObject;
  name: Uint8Array;
}

function decode(b64: string, what: string): TpmtPublic {
  try {
    return parsePublic(Buffer.from(b64, 'base64'));
  } catch (err) {
    throw new Refusal(what === 'AK' ? 'ak-invalid' : 'ek-invalid', `the ${what} public area does not parse: ${errorMessage(err)}`);
  }
}

function checkEkShape(kind: EkKind, p: TpmtPublic): string | null {
  if ((p.attributes & (A.restricted | A.decrypt)) !== (A.restricted | A.decrypt) || p.attributes & A.sign) return 'is not a restricted decryption key';
  if (!p.symmetric || p.symmetric.alg !== TPM_ALG.AES || p.symmetric.mode !== TPM_ALG.CFB || (p.symmetric.keyBits !== 128 && p.symmetric.keyBits !== 256)) {
    return 'does not use AES-128-CFB or AES-256-CFB';
  }
  // MakeCredential's secret is 32 bytes and must fit the nameAlg digest: SHA-256 or stronger.
  if (p.nameAlg === TPM_ALG.SHA1 || !HASHES[p.nameAlg]) return 'does not use SHA-256 or stronger as its nameAlg';
  if (kind === 'rsa2048' && !(p.type === 'rsa' && p.keyBits === 2048)) return 'is not RSA-2048';
  if (kind === 'eccp256' && !(p.type === 'ecc' && p.curve === TPM_ECC.NIST_P256)) return 'is not ECC P-256';
  return null;
}

/**
 * Checks the EKs of a start request: each kind once, of its kind, usable for MakeCredential, and,
 * when a certificate came along, certifying this very key.
 */
export function checkEks(req: StartRequest): ClaimedEk[] {
  const seen = new Set<EkKind>();
  return req.eks.map((e) => {
    if (seen.has(e.kind)) throw new Refusal('ek-invalid', `two ${e.kind} EKs were sent`);
    seen.add(e.kind);
    const pub = decode(e.public, `${e.kind} EK`);
    const bad = checkEkShape(e.kind, pub);
    if (bad) throw new Refusal('ek-invalid', `the ${e.kind} EK ${bad}`);
    let hash: string;
    try {
      hash = ekHash(pub);
    } catch (err) {
      throw new Refusal('ek-invalid', `the ${e.kind} EK is not a valid key: ${errorMessage(err)}`);
    }
    let certificate: ClaimedEk['certificate'] = null;
    if (e.certificate !== null) {
      const cert = certifying(e.kind, Buffer.from(e.certificate, 'base64'), hash);
      certificate = { der: Buffer.from(cert.der).toString('base64') };
    }
    return { kind: e.kind, pub, hash, certificate };
  });
}

/**
 * The EK certificate as the TPM's NV index holds it (the TCG header, padding and RSAES-OAEP keys
 * of real TPMs included), when it certifies the EK whose hash is `hash`: a certificate that does
 * not read, or certifies another key, is refused, saying which.
 */
function certifying(kind: EkKind, bytes: Uint8Array, hash: string): { der: Uint8Array; ekHash: string } {
  let cert: { der: Uint8Array; ekHash: string };
  try {
    cert = certifiedEkHash(bytes);
  } catch (err) {
    throw new Refusal('ek-cert-mismatch', `the ${kind} EK certificate does not read: ${errorMessage(err)}`);
  }
  if (cert.ekHash !== hash) throw new Refusal('ek-cert-mismatch', `the ${kind} EK certificate certifies ${cert.ekHash}, not the EK ${hash}`);
  return cert;
}

/** Attributes an AK must have for its quotes to mean anything. */
const AK_REQUIRED = A.fixedTPM | A.fixedParent | A.sensitiveDataOrigin | A.restricted | A.sign;

/**
 * Checks the AK: a restricted signing key that cannot leave its TPM. Its Name covers these
 * attributes, and ActivateCredential releases the secrets only to a TPM holding an object with that
 * Name, so a key that passes here and activates really is such a key in the EK's TPM.
 */
export function checkAk(b64: string): CheckedAk {
  const pub = decode(b64, 'AK');
  if ((pub.attributes & AK_REQUIRED) !== AK_REQUIRED)
    throw new Refusal('ak-invalid', 'the AK is not a fixedTPM, fixedParent, restricted signing key made in the TPM');
  if (pub.attributes & A.decrypt) throw new Refusal('ak-invalid', 'the AK is also a decryption key');
  const hashOk = pub.scheme.hashAlg !== undefined && pub.scheme.hashAlg !== TPM_ALG.SHA1 && HASHES[pub.scheme.hashAlg] !== undefined;
  const schemeOk = pub.type === 'ecc' ? pub.scheme.scheme === TPM_ALG.ECDSA : pub.scheme.scheme === TPM_ALG.RSASSA || pub.scheme.scheme === TPM_ALG.RSAPSS;
  if (!hashOk || !schemeOk) throw new Refusal('ak-invalid', 'the AK does not declare an ECDSA, RSASSA or RSAPSS scheme with SHA-256 or stronger');
  if (pub.nameAlg === TPM_ALG.SHA1 || !HASHES[pub.nameAlg]) throw new Refusal('ak-invalid', "the AK's nameAlg is not SHA-256 or stronger");
  let key: KeyObject;
  try {
    key = publicKeyObject(pub);
  } catch (err) {
    throw new Refusal('ak-invalid', errorMessage(err));
  }
  return { pub, key, name: objectName(Buffer.from(b64, 'base64')) };
}
