/**
 * Replay: recompute every PCR the log measures, per bank, as the TPM did: PCR = H(PCR || digest),
 * starting from zeros (PCR 0 from the StartupLocality value when the log has that event).
 * EV_NO_ACTION events are never extended.
 */
import { createHash, hash, type BinaryToTextEncoding } from 'node:crypto';
import { FleetError } from '../errors.js';
import { NO_DIGEST, R_DIGESTS, R_PCR, R_TYPE, type EventLog } from './log.js';
import { EV_NO_ACTION, MAX_PCR, type HashAlgorithm } from './types.js';

// Imported bindings become getter calls once transpiled to CommonJS (tsx, vitest); the hot loop
// reads these module-local copies instead.
const NO_ACTION = EV_NO_ACTION;
const NONE = NO_DIGEST;
const [PCR, TYPE, DIGESTS] = [R_PCR, R_TYPE, R_DIGESTS];
const LARGEST_DIGEST = 64;
const SCRATCH = new Uint8Array((2 + MAX_PCR + 1) * LARGEST_DIGEST);
const SCRATCH_VIEW = new DataView(SCRATCH.buffer);
/** Node accepts any Buffer encoding for hash() output; @types/node lists only the binary-to-text ones. */
const UTF16LE = 'utf16le' as BinaryToTextEncoding;

/** PCR index → value, in ascending index order. */
export type PcrValues = Map<number, Uint8Array>;

/**
 * Final values of every bank that can be replayed, keyed by bank name (`sha256`, ...). A declared
 * bank is left out when fleet cannot hash its algorithm or when some measured event carries no
 * digest for it (then its values are unknowable); `replayBank` says why.
 */
export function replay(log: EventLog): Map<string, PcrValues> {
  const out = new Map<string, PcrValues>();
  const view = logView(log);
  for (let k = 0; k < log.banks.length; k++) {
    const values = replayIndex(log, k, view);
    if (typeof values !== 'string') out.set(log.banks[k]!.name, values);
  }
  return out;
}

/** One bank's final values; raises `FleetError` (`eventlog-bank-unavailable`) when it cannot be replayed. */
export function replayBank(log: EventLog, bank: string): PcrValues {
  const k = log.bankIndex(bank);
  const values = k < 0 ? `the log has no ${bank} bank (it has ${log.banks.map((b) => b.name).join(', ')})` : replayIndex(log, k, logView(log));
  if (typeof values === 'string') throw new FleetError('eventlog-bank-unavailable', values);
  return values;
}

/** H(pcr || digest): one PCR extend, for callers that model events the log lacks. */
export function extendPcr(algorithm: HashAlgorithm, pcr: Uint8Array, digest: Uint8Array): Uint8Array {
  return new Uint8Array(createHash(algorithm.nodeName).update(pcr).update(digest).digest());
}

function logView(log: EventLog): DataView {
  return new DataView(log.bytes.buffer, log.bytes.byteOffset, log.bytes.byteLength);
}

/** The values, or why the bank cannot be replayed. */
function replayIndex(log: EventLog, k: number, logView: DataView): PcrValues | string {
  const bank = log.banks[k]!;
  const algorithm = bank.algorithm;
  if (!algorithm) return `bank ${bank.name} uses an algorithm fleet cannot compute`;
  const size = bank.size;
  const name = algorithm.nodeName;
  const records = log.records;
  const stride = log.stride;
  const digestField = DIGESTS + k;
  // Extends run in a scratch area shared by every call (replay is synchronous): the input
  // (PCR || digest) and then the 24 PCRs. Copies go a word at a time; digest sizes are multiples
  // of 4. crypto.hash() is a one-shot call without a Hash object; its result comes back as a
  // utf16le string (two bytes a char, lone surrogates kept), which copies back in half the
  // charCodeAt calls of latin1 and far cheaper than a Buffer result is allocated.
  const view = SCRATCH_VIEW;
  const input = SCRATCH.subarray(0, 2 * size);
  const base = 2 * size;
  SCRATCH.fill(0, base, base + (MAX_PCR + 1) * size);
  if (log.startupLocality !== null) view.setUint8(base + size - 1, log.startupLocality);
  let measured = 0;
  for (let i = 0, at = 0; i < log.length; i++, at += stride) {
    if (records[at + TYPE] === NO_ACTION) continue;
    const digest = records[at + digestField]!;
    if (digest === NONE) return `event ${i} has no ${bank.name} digest, so the ${bank.name} bank cannot be replayed`;
    const pcr = records[at + PCR]!;
    const p = base + pcr * size;
    for (let j = 0; j < size; j += 4) view.setUint32(j, view.getUint32(p + j));
    for (let j = 0; j < size; j += 4) view.setUint32(size + j, logView.getUint32(digest + j));
    const h = hash(name, input, UTF16LE);
    for (let j = 0; j < size; j += 2) view.setUint16(p + j, h.charCodeAt(j >> 1), true);
    measured |= 1 << pcr;
  }
  const values: PcrValues = new Map();
  for (let pcr = 0; pcr <= MAX_PCR; pcr++) {
    if (measured & (1 << pcr)) values.set(pcr, SCRATCH.slice(base + pcr * size, base + (pcr + 1) * size));
  }
  return values;
}
