/**
 * A parsed event log. Events live in one flat Uint32Array of offsets into the original bytes rather
 * than as objects, so parsing and replay allocate almost nothing per event; `event(i)` builds the
 * friendly view (with subarray views, never copies) only when someone asks for it.
 */
import type { SpecIdEvent } from './noaction.js';
import type { HashAlgorithm } from './types.js';
import { eventTypeName } from './types.js';

/** `crypto-agile`: TCG_PCR_EVENT2 after a Spec ID header; `sha1-legacy`: TCG_PCClientPCREvent only. */
export type LogFormat = 'crypto-agile' | 'sha1-legacy';

export interface Bank {
  /** `sha256`, ...; `alg_0x0027`-style for an algorithm fleet cannot hash (parsed, never replayed). */
  readonly name: string;
  readonly algId: number;
  readonly size: number;
  readonly algorithm: HashAlgorithm | undefined;
}

export interface TcgEvent {
  /** Position in the log; 0 is the first event (the Spec ID header of a crypto-agile log). */
  readonly index: number;
  readonly pcr: number;
  readonly type: number;
  readonly typeName: string;
  /** Byte offset of the event record in the log, and its length. */
  readonly offset: number;
  readonly size: number;
  /** The event data: a view into the log bytes. Not covered by any digest unless the spec says so. */
  readonly data: Uint8Array;
  /** Digest per bank name, as views. Empty for the Spec ID header, which no bank measures. */
  readonly digests: ReadonlyMap<string, Uint8Array>;
}

/** Field positions in a record; each record is `RECORD_FIELDS + banks.length` words long. */
export const R_START = 0;
export const R_PCR = 1;
export const R_TYPE = 2;
export const R_DATA = 3;
export const R_DATA_LEN = 4;
/** First of the per-bank digest offsets, in `banks` order. */
export const R_DIGESTS = 5;
export const RECORD_FIELDS = 5;
/** Digest offset of an event a bank does not measure (the Spec ID header). */
export const NO_DIGEST = 0xffffffff;

export class EventLog {
  readonly stride: number;

  constructor(
    readonly bytes: Uint8Array,
    readonly format: LogFormat,
    /** The header of a crypto-agile log; `null` for the legacy format. */
    readonly specId: SpecIdEvent | null,
    readonly banks: readonly Bank[],
    /** Number of events, the Spec ID header included. */
    readonly length: number,
    /** From a StartupLocality EV_NO_ACTION event (0, 3 or 4); `null` when the log has none. */
    readonly startupLocality: number | null,
    /** `length` records of `stride` words (see `R_*`): the hot path for replay and scans. */
    readonly records: Uint32Array,
  ) {
    this.stride = RECORD_FIELDS + banks.length;
  }

  pcrOf(i: number): number {
    return this.records[this.check(i) * this.stride + R_PCR]!;
  }

  typeOf(i: number): number {
    return this.records[this.check(i) * this.stride + R_TYPE]!;
  }

  dataOf(i: number): Uint8Array {
    const at = this.check(i) * this.stride;
    const off = this.records[at + R_DATA]!;
    return this.bytes.subarray(off, off + this.records[at + R_DATA_LEN]!);
  }

  /** Index into `banks`, or -1. */
  bankIndex(name: string): number {
    return this.banks.findIndex((b) => b.name === name);
  }

  /** Event `i`'s digest in bank `bank` (an index into `banks`), or undefined when it has none. */
  digestOf(i: number, bank: number): Uint8Array | undefined {
    const b = this.banks[bank];
    if (!b) return undefined;
    const off = this.records[this.check(i) * this.stride + R_DIGESTS + bank]!;
    return off === NO_DIGEST ? undefined : this.bytes.subarray(off, off + b.size);
  }

  event(i: number): TcgEvent {
    const at = this.check(i) * this.stride;
    const r = this.records;
    const start = r[at + R_START]!;
    const dataOff = r[at + R_DATA]!;
    const dataEnd = dataOff + r[at + R_DATA_LEN]!;
    const digests = new Map<string, Uint8Array>();
    this.banks.forEach((b, k) => {
      const off = r[at + R_DIGESTS + k]!;
      if (off !== NO_DIGEST) digests.set(b.name, this.bytes.subarray(off, off + b.size));
    });
    const type = r[at + R_TYPE]!;
    return {
      index: i,
      pcr: r[at + R_PCR]!,
      type,
      typeName: eventTypeName(type),
      offset: start,
      size: dataEnd - start,
      data: this.bytes.subarray(dataOff, dataEnd),
      digests,
    };
  }

  *[Symbol.iterator](): IterableIterator<TcgEvent> {
    for (let i = 0; i < this.length; i++) yield this.event(i);
  }

  private check(i: number): number {
    if (!Number.isInteger(i) || i < 0 || i >= this.length) throw new RangeError(`event ${i} is not in 0..${this.length - 1}`);
    return i;
  }
}
