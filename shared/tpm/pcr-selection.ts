import type { ByteReader } from '../bytes/reader.js';
import type { ByteWriter } from '../bytes/writer.js';

/** One bank's selected PCR indices (a TPMS_PCR_SELECTION). */
export interface PcrSelection {
  hashAlg: number;
  pcrs: number[];
}

/** The PCRs of a PC Client TPM: 24, so a 3-byte select bitmap. */
export const PCR_COUNT = 24;

export function writePcrSelections(w: ByteWriter, sels: readonly PcrSelection[]): void {
  w.u32(sels.length);
  for (const s of sels) {
    const bitmap = new Uint8Array(3);
    for (const i of s.pcrs) {
      if (!Number.isInteger(i) || i < 0 || i >= PCR_COUNT) throw new RangeError(`PCR index ${i} out of range`);
      bitmap[i >> 3]! |= 1 << (i & 7);
    }
    w.u16(s.hashAlg).u8(bitmap.length).bytes(bitmap);
  }
}

/** Reads a TPML_PCR_SELECTION; indices come back sorted ascending. */
export function readPcrSelections(r: ByteReader): PcrSelection[] {
  const count = r.u32('TPML_PCR_SELECTION.count');
  if (count > 16) r.fail(`PCR selection lists ${count} banks`);
  const out: PcrSelection[] = [];
  for (let n = 0; n < count; n++) {
    const hashAlg = r.u16('pcrSelection.hash');
    const size = r.u8('pcrSelection.sizeofSelect');
    if (size > 32) r.fail(`PCR select bitmap of ${size} bytes`);
    const bitmap = r.bytes(size, 'pcrSelection.pcrSelect');
    const pcrs: number[] = [];
    for (let i = 0; i < size * 8; i++) if (bitmap[i >> 3]! & (1 << (i & 7))) pcrs.push(i);
    out.push({ hashAlg, pcrs });
  }
  return out;
}
