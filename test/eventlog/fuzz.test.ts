import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ParseError } from '../../shared/errors.js';
import { decodeEvent, summarize } from '../../shared/eventlog/decode.js';
import type { EventLog } from '../../shared/eventlog/log.js';
import { parseEventLog } from '../../shared/eventlog/parse.js';
import { replay } from '../../shared/eventlog/replay.js';
import { secureBootState } from '../../shared/eventlog/secureboot.js';
import * as T from '../../shared/eventlog/types.js';
import { comparePcrs } from '../../shared/eventlog/verify.js';
import { EXPECTED_PCRS, keylimeLog, toolsLog } from './fixtures.js';

const LOGS = [
  ...Object.keys(EXPECTED_PCRS).map(toolsLog),
  keylimeLog('binary_bios_measurements'),
  keylimeLog('binary_bios_measurements-secureboot'),
  keylimeLog('mb_log.b64'),
];
/** The Spec ID header of a sha1+sha256 log, so random tails reach the TCG_PCR_EVENT2 parser. */
const AGILE_HEADER = toolsLog('event-arch-linux.bin').subarray(0, 32 + 37);

/** Parses `bytes` and exercises everything downstream; the only error allowed is a ParseError. */
function survives(bytes: Uint8Array): boolean {
  let log: EventLog;
  try {
    log = parseEventLog(bytes);
  } catch (err) {
    if (err instanceof ParseError) return true;
    throw err;
  }
  const pcrs = replay(log);
  secureBootState(log);
  for (const e of log) summarize(decodeEvent(e));
  for (const [bank, values] of pcrs) expect(comparePcrs(log, bank, values).ok).toBe(true);
  return true;
}

const u32 = fc.oneof(fc.constantFrom(0, 1, 23, 24, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff), fc.nat({ max: 0xffffffff }));

/** A real log with one of: bit flips, a truncation, or a u32 overwritten (often a size field). */
const mutatedLog = fc.constantFrom(...LOGS).chain((bytes) => {
  const log = parseEventLog(bytes);
  // PCRIndex, EventType, DigestCount (agile) and EventSize of every event.
  const fieldOffsets = Array.from(log, (e) => [e.offset, e.offset + 4, e.offset + 8, e.offset + e.size - e.data.length - 4]).flat();
  const flips = fc.array(fc.tuple(fc.nat({ max: bytes.length - 1 }), fc.nat({ max: 7 })), { minLength: 1, maxLength: 8 }).map((list) => {
    const copy = new Uint8Array(bytes);
    for (const [at, bit] of list) copy[at]! ^= 1 << bit;
    return copy;
  });
  const truncated = fc.nat({ max: bytes.length - 1 }).map((n) => bytes.subarray(0, n));
  const overwritten = fc.tuple(fc.oneof(fc.constantFrom(...fieldOffsets), fc.nat({ max: bytes.length - 4 })), u32).map(([at, value]) => {
    const copy = new Uint8Array(bytes);
    if (at + 4 <= copy.length) new DataView(copy.buffer).setUint32(at, value, true);
    return copy;
  });
  return fc.oneof(flips, truncated, overwritten);
});

describe('parseEventLog under fuzzing', () => {
  it('answers random bytes with an EventLog or a ParseError', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 512 }), survives), { numRuns: 1000 });
  });

  it('answers a valid Spec ID header followed by random bytes the same way', () => {
    const tail = fc.uint8Array({ maxLength: 512 }).map((t) => new Uint8Array([...AGILE_HEADER, ...t]));
    fc.assert(fc.property(tail, survives), { numRuns: 1000 });
  });

  it('answers mutated real logs the same way', () => {
    fc.assert(fc.property(mutatedLog, survives), { numRuns: 2000 });
  });

  it('decodes any data for any event type without throwing', () => {
    const types = fc.oneof(
      fc.constantFrom(
        ...Array.from({ length: 0x13 }, (_, i) => i),
        0x80000001,
        0x80000002,
        0x80000003,
        0x80000004,
        0x80000006,
        0x80000007,
        0x80000008,
        0x8000000a,
        0x8000000c,
        0x800000e0,
      ),
      fc.nat({ max: 0xffffffff }),
    );
    fc.assert(
      fc.property(types, fc.uint8Array({ maxLength: 256 }), (type, data) => {
        const d = decodeEvent({ type, data });
        expect(typeof summarize(d)).toBe('string');
        if (type === T.EV_SEPARATOR && data.length === 4) expect(d.kind).toBe('separator');
      }),
      { numRuns: 2000 },
    );
  });
});
