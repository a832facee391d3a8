import { TPM_ALG, TPM_CC, TPM_ST } from '../../shared/tpm/constants.js';
import type { Transport } from '../../shared/tpm/transport.js';

/**
 * Plays a TPM without ECC: a real TPM underneath, but TPM2_CreatePrimary of an ECC key is
 * answered TPM_RC_CURVE (on parameter 2), as an RSA-only TPM answers it.
 */
export function withoutEcc(inner: Transport): Transport {
  return {
    async transmit(cmd) {
      const v = new DataView(cmd.buffer, cmd.byteOffset, cmd.byteLength);
      if (v.getUint32(6) === TPM_CC.CreatePrimary && v.getUint16(0) === TPM_ST.SESSIONS) {
        const authSize = v.getUint32(14);
        let at = 18 + authSize; // header, one handle, authorizationSize, auth area
        at += 2 + v.getUint16(at); // TPM2B_SENSITIVE_CREATE
        const type = v.getUint16(at + 2); // TPM2B_PUBLIC size, then TPMT_PUBLIC.type
        if (type === TPM_ALG.ECC) {
          const rsp = new Uint8Array(10);
          const w = new DataView(rsp.buffer);
          w.setUint16(0, TPM_ST.NO_SESSIONS);
          w.setUint32(2, 10);
          w.setUint32(6, 0x0a6 | 0x040 | (2 << 8));
          return rsp;
        }
      }
      return inner.transmit(cmd);
    },
    close: () => inner.close(),
  };
}
