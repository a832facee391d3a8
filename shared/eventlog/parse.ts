/**
 * `parseEventLog`: the TCG PC Client event log, crypto-agile (Spec ID Event03 header, then
 * TCG_PCR_EVENT2) or legacy SHA-1 (TCG_PCClientPCREvent only), all little-endian. Structure is
 * checked strictly, because the replay and every policy decision stand on it; event data is kept
 * as offsets and decoded only on demand (decode.ts), because no digest covers most of it.
 */
import { ByteReader } from '../bytes/reader.js';
import { ParseError } from '../errors.js';
import { EventLog, NO_DIGEST, RECORD_FIELDS, R_DATA, R_DATA_LEN, R_DIGESTS, R_PCR, R_START, R_TYPE, type Bank } from './log.js';
import { SPEC_ID_EVENT03, hasSignature, parseSpecIdEvent, startupLocalityOf } from './noaction.js';
import { EV_NO_ACTION, HASH_ALGORITHMS, MAX_PCR, TPM_ALG_SHA1 } from './types.js';

const CODE = 'eventlog-malformed';
const SHA1_SIZE = 20;
// Imported bindings become getter calls once transpiled to CommonJS (tsx, vitest); the hot loops
// read these module-local copies instead.
const NO_ACTION = EV_NO_ACTION;
const NONE = NO_DIGEST;
const TOP_PCR = MAX_PCR;
const [START, PCR, TYPE, DATA, DATA_LEN, DIGESTS] = [R_START, R_PCR, R_TYPE, R_DATA, R_DATA_LEN, R_DIGESTS];

export function parseEventLog(bytes: Uint8Array): EventLog {
  if (bytes.length === 0) throw new ParseError('eventlog-empty', 'event log is empty (0 bytes)');
  const r = new ByteReader(bytes, CODE, 'event log');
  // Both formats start with a legacy-format event; a crypto-agile log's is the Spec ID header.
  const pcr = r.u32le('PCRIndex');
  const type = r.u32le('EventType');
  r.bytes(SHA1_SIZE, 'digest');
  const size = r.u32le('EventSize');
  const data = r.bytes(size, 'event data');
  if (pcr === 0 && type === EV_NO_ACTION && hasSignature(data, SPEC_ID_EVENT03)) {
    const specId = parseSpecIdEvent(data);
    const banks = specId.algorithms.map(({ id, size }): Bank => {
      const algorithm = HASH_ALGORITHMS.get(id);
      return { name: algorithm?.name ?? `alg_0x${id.toString(16).padStart(4, '0')}`, algId: id, size, algorithm };
    });
    r.offset -= size; // the parser records the header's data like any event's
    return new Parser(r, banks).agile(specId, size);
  }
  r.offset = 0;
  const sha1 = HASH_ALGORITHMS.get(TPM_ALG_SHA1)!;
  return new Parser(r, [{ name: sha1.name, algId: sha1.id, size: sha1.size, algorithm: sha1 }]).legacy();
}

class Parser {
  private readonly stride: number;
  private records: Uint32Array;
  private n = 0;
  private locality: number | null = null;
  private pcr0Extended = false;

  constructor(
    private readonly r: ByteReader,
    private readonly banks: Bank[],
  ) {
    this.stride = RECORD_FIELDS + banks.length;
    // Real logs average several hundred bytes an event; growth covers the rest.
    this.records = new Uint32Array(Math.max(16, r.buf.length >>> 8) * this.stride);
  }

  /** Crypto-agile: the Spec ID header (already read), then TCG_PCR_EVENT2 until the end. */
  agile(specId: EventLog['specId'], headerSize: number): EventLog {
    const { r, banks, stride } = this;
    const nb = banks.length;
    const header = this.begin(0, 0, NO_ACTION);
    this.records.fill(NONE, header + DIGESTS, header + stride);
    this.end(header, r.offset, headerSize);
    const ids = banks.map((b) => b.algId);
    const sizes = banks.map((b) => b.size);
    const fields = banks.map((b) => `${b.name} digest`);
    while (r.remaining > 0) {
      const start = r.offset;
      const pcr = r.u32le('PCRIndex');
      const type = r.u32le('EventType');
      const count = r.u32le('DigestCount');
      // Fewer digests than declared banks happens (tpm2-tools' uefivar fixture); replay.ts then
      // leaves the uncovered banks out. More, or none for a measured event, is never right.
      if (count > nb) r.fail(`event ${this.n} has ${count} digests, the Spec ID event declares ${nb} algorithms`, start + 8);
      if (count === 0 && type !== NO_ACTION) r.fail(`event ${this.n} has no digests`, start + 8);
      const at = this.begin(start, pcr, type);
      const records = this.records;
      const digests = at + DIGESTS;
      for (let j = 0; j < nb; j++) records[digests + j] = NONE;
      let seen = 0;
      for (let k = 0; k < count; k++) {
        const algAt = r.offset;
        const alg = r.u16le('AlgorithmId');
        let j = 0;
        while (j < nb && ids[j] !== alg) j++;
        if (j === nb) r.fail(`event ${this.n} has a digest of algorithm 0x${alg.toString(16)}, which the Spec ID event does not declare`, algAt);
        if (seen & (1 << j)) r.fail(`event ${this.n} has two ${banks[j]!.name} digests`, algAt);
        seen |= 1 << j;
        records[digests + j] = r.offset;
        this.skip(sizes[j]!, fields[j]!);
      }
      const size = r.u32le('EventSize');
      this.end(at, r.offset, size);
    }
    return this.finish('crypto-agile', specId);
  }

  /** Legacy: TCG_PCClientPCREvent (one SHA-1 digest) until the end. */
  legacy(): EventLog {
    const r = this.r;
    while (r.remaining > 0) {
      const start = r.offset;
      const pcr = r.u32le('PCRIndex');
      const type = r.u32le('EventType');
      const at = this.begin(start, pcr, type);
      this.records[at + DIGESTS] = r.offset;
      this.skip(SHA1_SIZE, 'sha1 digest');
      const size = r.u32le('EventSize');
      this.end(at, r.offset, size);
    }
    return this.finish('sha1-legacy', null);
  }

  /** Moves past `n` bytes without making a view: the hot loop keeps offsets only. */
  private skip(n: number, field: string): void {
    const r = this.r;
    if (n > r.remaining) r.fail(`event ${this.n}'s ${field} needs ${n} bytes, ${r.remaining} left`);
    r.offset += n;
  }

  /** Checks the PCR index and starts a record; returns its word offset. */
  private begin(start: number, pcr: number, type: number): number {
    // EV_NO_ACTION is never extended, so firmware may give it any index (e.g. 0xFFFFFFFF).
    if (type !== NO_ACTION) {
      if (pcr > TOP_PCR) this.r.fail(`event ${this.n} names PCR ${pcr}, above ${TOP_PCR}`, start);
      if (pcr === 0) this.pcr0Extended = true;
    }
    if ((this.n + 1) * this.stride > this.records.length) {
      const grown = new Uint32Array(this.records.length * 2);
      grown.set(this.records);
      this.records = grown;
    }
    const at = this.n * this.stride;
    const rec = this.records;
    rec[at + START] = start;
    rec[at + PCR] = pcr;
    rec[at + TYPE] = type;
    return at;
  }

  /** Records the event data (`size` bytes at the reader's offset), moves past it, ends the record. */
  private end(at: number, dataOffset: number, size: number): void {
    this.skip(size, 'event data');
    const rec = this.records;
    rec[at + DATA] = dataOffset;
    rec[at + DATA_LEN] = size;
    if (rec[at + TYPE] === NO_ACTION && rec[at + PCR] === 0) this.noteStartupLocality(dataOffset, size, rec[at + START]!);
    this.n++;
  }

  private noteStartupLocality(dataOffset: number, size: number, start: number): void {
    const locality = startupLocalityOf(this.r.buf.subarray(dataOffset, dataOffset + size));
    if (locality === null) return;
    const r = this.r;
    // The TPM starts once: a second or late StartupLocality event cannot describe PCR 0's reset.
    if (this.locality !== null) r.fail('second StartupLocality event', start);
    if (this.pcr0Extended) r.fail('StartupLocality event after PCR 0 was extended', start);
    if (locality !== 0 && locality !== 3 && locality !== 4) r.fail(`StartupLocality ${locality} is not 0, 3 or 4`, start);
    this.locality = locality;
  }

  private finish(format: EventLog['format'], specId: EventLog['specId']): EventLog {
    const records = this.records.subarray(0, this.n * this.stride);
    return new EventLog(this.r.buf, format, specId, this.banks, this.n, this.locality, records);
  }
}
