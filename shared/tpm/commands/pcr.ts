import { ByteWriter } from '../../bytes/writer.js';
import type { Tpm } from '../client.js';
import { HASHES, TPM_CC } from '../constants.js';
import { readPcrSelections, writePcrSelections } from '../pcr-selection.js';

/**
 * TPM2_PCR_Read of `pcrs` in one bank. A TPM returns at most 8 digests per call, and may return
 * fewer than asked: this asks again for the rest, and refuses an answer that names PCRs it was not asked for.
 */
export async function pcrRead(tpm: Tpm, hashAlg: number, pcrs: readonly number[]): Promise<Map<number, Uint8Array>> {
  const size = HASHES[hashAlg]?.size;
  const out = new Map<number, Uint8Array>();
  let left = [...pcrs].sort((a, b) => a - b);
  while (left.length > 0) {
    const w = new ByteWriter(16);
    writePcrSelections(w, [{ hashAlg, pcrs: left }]);
    const r = (await tpm.run({ name: 'PCR_Read', cc: TPM_CC.PCR_Read, params: w.finish() })).params;
    r.u32('pcrUpdateCounter');
    const sel = readPcrSelections(r);
    const got = sel.find((s) => s.hashAlg === hashAlg)?.pcrs ?? [];
    const n = r.u32('TPML_DIGEST.count');
    if (n !== got.length || sel.length > 1) r.fail(`PCR_Read returned ${n} digests for ${got.length} selected PCRs`);
    for (const i of got) {
      if (!left.includes(i)) r.fail(`PCR_Read returned PCR ${i}, which was not asked for`);
      const d = r.tpm2b('pcr digest');
      if (size !== undefined && d.length !== size) r.fail(`PCR ${i} digest is ${d.length} bytes`);
      out.set(i, d);
    }
    if (got.length === 0) r.fail(`PCR_Read returned none of PCRs ${left.join(',')} (bank not allocated?)`);
    left = left.filter((i) => !out.has(i));
  }
  return out;
}

/** TPM2_PCR_Extend of one PCR in one or more banks (for tests and the demo's simulated boot). */
export async function pcrExtend(tpm: Tpm, pcr: number, digests: ReadonlyArray<{ hashAlg: number; digest: Uint8Array }>): Promise<void> {
  const w = new ByteWriter(128).u32(digests.length);
  for (const d of digests) w.u16(d.hashAlg).bytes(d.digest);
  await tpm.run({ name: 'PCR_Extend', cc: TPM_CC.PCR_Extend, handles: [pcr], auths: [{ kind: 'password' }], params: w.finish() });
}
