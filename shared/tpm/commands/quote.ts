import { ByteWriter } from '../../bytes/writer.js';
import type { Tpm } from '../client.js';
import { TPM_ALG, TPM_CC } from '../constants.js';
import { writePcrSelections, type PcrSelection } from '../pcr-selection.js';

/** A quote as the TPM produced it: the TPMS_ATTEST bytes and the TPMT_SIGNATURE bytes over them. */
export interface RawQuote {
  attest: Uint8Array;
  signature: Uint8Array;
}

/** TPM2_Quote with the key's own scheme (inScheme TPM_ALG_NULL). */
export async function quote(tpm: Tpm, akHandle: number, qualifyingData: Uint8Array, selection: readonly PcrSelection[]): Promise<RawQuote> {
  const w = new ByteWriter(64).tpm2b(qualifyingData).u16(TPM_ALG.NULL);
  writePcrSelections(w, selection);
  const r = (await tpm.run({ name: 'Quote', cc: TPM_CC.Quote, handles: [akHandle], auths: [{ kind: 'password' }], params: w.finish() })).params;
  const attest = r.tpm2b('quoted');
  const signature = r.bytes(r.remaining, 'signature');
  return { attest, signature };
}
