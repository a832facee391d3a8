import { constants, verify, type KeyObject } from 'node:crypto';
import { ByteReader } from '../bytes/reader.js';
import { HASHES, TPM_ALG } from './constants.js';
import { curveSize, type TpmtPublic } from './public.js';

/** A TPMT_SIGNATURE of the kinds an AK makes. */
export type Signature =
  | { alg: typeof TPM_ALG.RSASSA | typeof TPM_ALG.RSAPSS; hashAlg: number; sig: Uint8Array }
  | { alg: typeof TPM_ALG.ECDSA; hashAlg: number; r: Uint8Array; s: Uint8Array };

export function parseSignature(bytes: Uint8Array): Signature {
  const rd: ByteReader = new ByteReader(bytes, 'quote-malformed', 'quote TPMT_SIGNATURE');
  const alg = rd.u16('sigAlg');
  const hashAlg = rd.u16('hash');
  let out: Signature;
  if (alg === TPM_ALG.RSASSA || alg === TPM_ALG.RSAPSS) out = { alg, hashAlg, sig: rd.tpm2b('sig') };
  else if (alg === TPM_ALG.ECDSA) out = { alg, hashAlg, r: rd.tpm2b('signatureR'), s: rd.tpm2b('signatureS') };
  else rd.fail(`signature algorithm 0x${alg.toString(16)} is not RSASSA, RSAPSS or ECDSA`, 0);
  rd.end('TPMT_SIGNATURE');
  return out;
}

function pad(b: Uint8Array, size: number): Buffer {
  if (b.length > size) return Buffer.alloc(0); // cannot be a valid component; verify fails
  return Buffer.concat([Buffer.alloc(size - b.length), b]);
}

/**
 * True when `sig` is `key`'s signature over `message` made with exactly the key's own scheme.
 * A signature in another scheme or hash than the AK declares is refused, not merely checked.
 */
export function verifySignature(ak: TpmtPublic, key: KeyObject, message: Uint8Array, sig: Signature): boolean {
  if (sig.alg !== ak.scheme.scheme || sig.hashAlg !== ak.scheme.hashAlg) return false;
  const hash = HASHES[sig.hashAlg];
  if (!hash) return false;
  if (sig.alg === TPM_ALG.ECDSA) {
    if (ak.type !== 'ecc') return false;
    const size = curveSize(ak.curve);
    const rs = Buffer.concat([pad(sig.r, size), pad(sig.s, size)]);
    if (rs.length !== 2 * size) return false;
    return verify(hash.node, message, { key, dsaEncoding: 'ieee-p1363' }, rs);
  }
  if (ak.type !== 'rsa') return false;
  const padding = sig.alg === TPM_ALG.RSAPSS ? constants.RSA_PKCS1_PSS_PADDING : constants.RSA_PKCS1_PADDING;
  return verify(hash.node, message, { key, padding, saltLength: constants.RSA_PSS_SALTLEN_AUTO }, sig.sig);
}
