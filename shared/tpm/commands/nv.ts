import { ByteWriter } from '../../bytes/writer.js';
import type { Tpm } from '../client.js';
import { TPM_CC, TPM_RH, TPMA_NV } from '../constants.js';
import { TpmError } from '../rc.js';

export interface NvPublic {
  index: number;
  nameAlg: number;
  attributes: number;
  authPolicy: Uint8Array;
  dataSize: number;
}

/** TPM2_NV_ReadPublic, or null when the index is not defined. */
export async function nvReadPublic(tpm: Tpm, index: number): Promise<NvPublic | null> {
  try {
    const r = (await tpm.run({ name: 'NV_ReadPublic', cc: TPM_CC.NV_ReadPublic, handles: [index] })).params;
    const pr = r.sub(r.u16('nvPublic size'), 'nvPublic');
    const nv: NvPublic = {
      index: pr.u32('nvIndex'),
      nameAlg: pr.u16('nameAlg'),
      attributes: pr.u32('attributes'),
      authPolicy: pr.tpm2b('authPolicy'),
      dataSize: pr.u16('dataSize'),
    };
    pr.end('TPMS_NV_PUBLIC');
    if (nv.index !== index) r.fail(`NV_ReadPublic for 0x${index.toString(16)} describes 0x${nv.index.toString(16)}`);
    r.tpm2b('nvName');
    return nv;
  } catch (err) {
    if (err instanceof TpmError && err.is('HANDLE')) return null;
    throw err;
  }
}

/**
 * The whole contents of an NV index, read in chunks of `chunk` bytes (at most the TPM's
 * TPM_PT_NV_BUFFER_MAX, or it refuses the read). Reads with the index's own empty auth when it allows AUTHREAD, else as owner.
 * Returns null when the index is not defined or was never written (absent is normal for EK certs).
 */
export async function nvReadAll(tpm: Tpm, index: number, chunk: number): Promise<Uint8Array | null> {
  const pub = await nvReadPublic(tpm, index);
  if (!pub || !(pub.attributes & TPMA_NV.WRITTEN)) return null;
  const authHandle = pub.attributes & TPMA_NV.AUTHREAD ? index : TPM_RH.OWNER;
  const out = new Uint8Array(pub.dataSize);
  for (let off = 0; off < pub.dataSize; ) {
    const size = Math.min(chunk, pub.dataSize - off);
    const r = (
      await tpm.run({
        name: 'NV_Read',
        cc: TPM_CC.NV_Read,
        handles: [authHandle, index],
        auths: [{ kind: 'password' }],
        params: new ByteWriter(4).u16(size).u16(off).finish(),
      })
    ).params;
    const data = r.tpm2b('data');
    if (data.length !== size) r.fail(`NV_Read returned ${data.length} bytes for ${size}`);
    out.set(data, off);
    off += size;
  }
  return out;
}
