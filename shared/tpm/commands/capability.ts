import { ByteWriter } from '../../bytes/writer.js';
import type { Tpm } from '../client.js';
import { TPM_CAP, TPM_CC } from '../constants.js';
import { readPcrSelections, type PcrSelection } from '../pcr-selection.js';

function capParams(cap: number, property: number, count: number): Uint8Array {
  return new ByteWriter(12).u32(cap).u32(property).u32(count).finish();
}

/** Every handle of a type from `first` on, following moreData (a handle type holds at most 2^24). */
export async function getHandles(tpm: Tpm, first: number): Promise<number[]> {
  const out: number[] = [];
  let property = first;
  for (;;) {
    const r = (await tpm.run({ name: 'GetCapability', cc: TPM_CC.GetCapability, params: capParams(TPM_CAP.HANDLES, property, 256) })).params;
    const more = r.u8('moreData');
    if (r.u32('capability') !== TPM_CAP.HANDLES) r.fail('capability is not TPM_CAP_HANDLES');
    const count = r.u32('count');
    if (count > 1024) r.fail(`lists ${count} handles`);
    for (let i = 0; i < count; i++) {
      const h = r.u32('handle');
      // Handles come in ascending order from `property`: anything else would page forever.
      if (h < property) r.fail(`handle 0x${h.toString(16)} is below the one asked for`);
      out.push(h);
    }
    if (out.length > 65536) r.fail('lists more than 65536 handles');
    if (!more || count === 0) break;
    // Stay within the same handle type: the TPM pages across types otherwise.
    if (out[out.length - 1]! >>> 24 !== first >>> 24) break;
    property = out[out.length - 1]! + 1;
  }
  return out.filter((h) => h >>> 24 === first >>> 24);
}

/** One TPM property (TPM_PT_*), or undefined when the TPM does not report it. */
export async function getProperty(tpm: Tpm, property: number): Promise<number | undefined> {
  const r = (await tpm.run({ name: 'GetCapability', cc: TPM_CC.GetCapability, params: capParams(TPM_CAP.TPM_PROPERTIES, property, 1) })).params;
  r.u8('moreData');
  if (r.u32('capability') !== TPM_CAP.TPM_PROPERTIES) r.fail('capability is not TPM_CAP_TPM_PROPERTIES');
  const count = r.u32('count');
  for (let i = 0; i < count; i++) {
    const p = r.u32('property');
    const v = r.u32('value');
    if (p === property) return v;
  }
  return undefined;
}

/** The PCR banks the TPM has allocated, with their PCRs. */
export async function getPcrBanks(tpm: Tpm): Promise<PcrSelection[]> {
  const r = (await tpm.run({ name: 'GetCapability', cc: TPM_CC.GetCapability, params: capParams(TPM_CAP.PCRS, 0, 1) })).params;
  r.u8('moreData');
  if (r.u32('capability') !== TPM_CAP.PCRS) r.fail('capability is not TPM_CAP_PCRS');
  return readPcrSelections(r).filter((s) => s.pcrs.length > 0);
}

/** Random bytes from the TPM's RNG (it may return fewer than asked; this loops). */
export async function getRandom(tpm: Tpm, n: number): Promise<Uint8Array> {
  const out = new Uint8Array(n);
  let have = 0;
  while (have < n) {
    const want = Math.min(n - have, 32);
    const r = (await tpm.run({ name: 'GetRandom', cc: TPM_CC.GetRandom, params: new ByteWriter(2).u16(want).finish() })).params;
    const got = r.tpm2b('randomBytes');
    if (got.length === 0 || got.length > want) r.fail(`returned ${got.length} random bytes for ${want}`);
    out.set(got, have);
    have += got.length;
  }
  return out;
}
