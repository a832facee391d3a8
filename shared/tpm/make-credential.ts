import { constants, createCipheriv, createECDH, createHmac, publicEncrypt, randomBytes } from 'node:crypto';
import { ByteWriter } from '../bytes/writer.js';
import { FleetError } from '../errors.js';
import { HASHES, TPM_ALG, TPM_ECC, TPMA_OBJECT } from './constants.js';
import { kdfa, kdfe } from './kdf.js';
import { publicKeyObject, type TpmtPublic } from './public.js';

/** What ActivateCredential takes: TPM2B_ID_OBJECT and TPM2B_ENCRYPTED_SECRET contents. */
export interface Credential {
  credentialBlob: Uint8Array;
  secret: Uint8Array;
}

const ECDH_CURVES: Record<number, string> = { [TPM_ECC.NIST_P256]: 'prime256v1', [TPM_ECC.NIST_P384]: 'secp384r1' };

/**
 * TPM2_MakeCredential done in software (Part 1, 24 "Credential Protection"): wraps `credential` so
 * that only the TPM holding `ek`'s private key can unwrap it, and only while an object whose Name
 * is `objectName` is loaded beside it. The seed travels encrypted to the EK: RSA-OAEP with label
 * "IDENTITY" for an RSA EK, an ephemeral ECDH with KDFe for an ECC EK.
 */
export function makeCredential(ek: TpmtPublic, objectName: Uint8Array, credential: Uint8Array): Credential {
  if ((ek.attributes & (TPMA_OBJECT.restricted | TPMA_OBJECT.decrypt)) !== (TPMA_OBJECT.restricted | TPMA_OBJECT.decrypt)) {
    throw new FleetError('ek-unusable', 'the EK is not a restricted decryption key');
  }
  const sym = ek.symmetric;
  if (!sym || sym.alg !== TPM_ALG.AES || sym.mode !== TPM_ALG.CFB || (sym.keyBits !== 128 && sym.keyBits !== 256)) {
    throw new FleetError('ek-unusable', "the EK's symmetric algorithm is not AES-CFB");
  }
  const hash = HASHES[ek.nameAlg];
  if (!hash) throw new FleetError('ek-unusable', `the EK's nameAlg 0x${ek.nameAlg.toString(16)} is not supported`);
  if (credential.length > hash.size) throw new RangeError(`credential of ${credential.length} bytes exceeds ${hash.size}`);

  let seed: Uint8Array;
  let secret: Uint8Array;
  if (ek.type === 'rsa') {
    seed = randomBytes(hash.size);
    secret = publicEncrypt(
      { key: publicKeyObject(ek), padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: hash.node, oaepLabel: Buffer.from('IDENTITY\0', 'latin1') },
      seed,
    );
  } else {
    const curve = ECDH_CURVES[ek.curve];
    if (!curve) throw new FleetError('ek-unusable', `the EK's curve 0x${ek.curve.toString(16)} is not supported`);
    publicKeyObject(ek); // validates the point is on the curve
    const ecdh = createECDH(curve);
    const eph = ecdh.generateKeys(); // 04 ‖ x ‖ y
    const size = (eph.length - 1) / 2;
    const ekPoint = Buffer.concat([Buffer.from([4]), pad(ek.x, size), pad(ek.y, size)]);
    const z = ecdh.computeSecret(ekPoint);
    const ephX = eph.subarray(1, 1 + size);
    seed = kdfe(ek.nameAlg, z, 'IDENTITY', ephX, pad(ek.x, size), hash.size * 8);
    secret = new ByteWriter(2 * size + 4)
      .tpm2b(ephX)
      .tpm2b(eph.subarray(1 + size))
      .finish();
  }

  const symKey = kdfa(ek.nameAlg, seed, 'STORAGE', objectName, new Uint8Array(0), sym.keyBits);
  const plain = new ByteWriter(hash.size + 2).tpm2b(credential).finish();
  const cipher = createCipheriv(`aes-${sym.keyBits}-cfb`, symKey, Buffer.alloc(16));
  const encIdentity = Buffer.concat([cipher.update(plain), cipher.final()]);
  const hmacKey = kdfa(ek.nameAlg, seed, 'INTEGRITY', new Uint8Array(0), new Uint8Array(0), hash.size * 8);
  const outerHmac = createHmac(hash.node, hmacKey).update(encIdentity).update(objectName).digest();
  const credentialBlob = new ByteWriter(hash.size + encIdentity.length + 4).tpm2b(outerHmac).bytes(encIdentity).finish();
  return { credentialBlob, secret };
}

function pad(b: Uint8Array, size: number): Buffer {
  if (b.length > size) throw new FleetError('ek-unusable', `ECC coordinate of ${b.length} bytes exceeds ${size}`);
  return Buffer.concat([Buffer.alloc(size - b.length), b]);
}
