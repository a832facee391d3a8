/**
 * Hostile input: random bytes, and lldpd's real frames with bit flips, truncations and lying TLV
 * lengths. The parsers answer with a value or a ParseError, never another exception, and whatever
 * they return the CLI can print.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { concatBytes } from '../../shared/bytes/hex.js';
import { ParseError } from '../../shared/errors.js';
import { readCaptureFile } from '../../shared/lldp/capture.js';
import { parseLldpFrame, parseLldpdu } from '../../shared/lldp/parse.js';
import type { LldpFrame } from '../../shared/lldp/types.js';
import { jsonReport, textReport } from '../../cli/commands/lldp.js';
import { CAPTURES, captureBytes, frameOf, tlv, tlvOffsets } from './fixtures.js';

const FRAMES = CAPTURES.map(frameOf);

/** A decoded frame is complete enough to print, whatever went wrong inside it. */
function printable(f: LldpFrame): void {
  expect(f.chassisId.value.length).toBeGreaterThan(0);
  expect(f.portId.value.length).toBeGreaterThan(0);
  expect(Number.isInteger(f.ttl)).toBe(true);
  for (const p of f.problems) expect(typeof p).toBe('string');
  JSON.stringify(jsonReport([{ index: 1, frame: f }]));
  textReport([{ index: 1, frame: f }]);
}

/** Parses `bytes`; the only error allowed is a ParseError. */
function survives(parse: (b: Uint8Array) => LldpFrame, bytes: Uint8Array): boolean {
  let f: LldpFrame;
  try {
    f = parse(bytes);
  } catch (err) {
    if (err instanceof ParseError) return true;
    throw err;
  }
  printable(f);
  return true;
}

/** A real frame with bit flips, a truncation, or a TLV header rewritten (mostly its length). */
const mutatedFrame = fc.constantFrom(...FRAMES).chain((frame) => {
  const headers = tlvOffsets(frame);
  const flips = fc.array(fc.tuple(fc.nat({ max: frame.length - 1 }), fc.nat({ max: 7 })), { minLength: 1, maxLength: 8 }).map((list) => {
    const copy = new Uint8Array(frame);
    for (const [at, bit] of list) copy[at]! ^= 1 << bit;
    return copy;
  });
  const truncated = fc.nat({ max: frame.length - 1 }).map((n) => frame.subarray(0, n));
  const lyingLength = fc.tuple(fc.constantFrom(...headers), fc.oneof(fc.nat({ max: 0x1ff }), fc.constantFrom(0, 1, 2, 3, 4, 0x1ff))).map(([at, length]) => {
    const copy = new Uint8Array(frame);
    copy[at] = (copy[at]! & 0xfe) | (length >> 8);
    copy[at + 1] = length & 0xff;
    return copy;
  });
  const newHeader = fc.tuple(fc.constantFrom(...headers), fc.nat({ max: 0xffff })).map(([at, header]) => {
    const copy = new Uint8Array(frame);
    copy[at] = header >> 8;
    copy[at + 1] = header & 0xff;
    return copy;
  });
  return fc.oneof(flips, truncated, lyingLength, newHeader);
});

/** A valid Ethernet header and mandatory TLVs, then TLVs the decoders know with random contents. */
const PREFIX = FRAMES[0]!.subarray(0, tlvOffsets(FRAMES[0]!)[3]!);
const OUIS = [
  [0x00, 0x80, 0xc2],
  [0x00, 0x12, 0x0f],
  [0x00, 0x12, 0xbb],
  [0x00, 0x01, 0x42],
];
const optionalTlv = fc.oneof(
  fc.tuple(fc.nat({ max: 127 }), fc.uint8Array({ maxLength: 40 })).map(([type, value]) => tlv(type, ...value)),
  fc.tuple(fc.constantFrom(...OUIS), fc.nat({ max: 12 }), fc.uint8Array({ maxLength: 40 })).map(([oui, subtype, value]) => tlv(127, ...oui, subtype, ...value)),
  // A Management Address with plausible lengths inside.
  fc.tuple(fc.nat({ max: 40 }), fc.constantFrom(1, 2, 6, 9), fc.uint8Array({ maxLength: 40 })).map(([n, family, rest]) => tlv(8, n, family, ...rest)),
  // A civic location with a random LCI.
  fc.tuple(fc.nat({ max: 255 }), fc.uint8Array({ maxLength: 40 })).map(([lci, rest]) => tlv(127, 0x00, 0x12, 0xbb, 3, 2, lci, ...rest)),
);
const knownTail = fc.array(optionalTlv, { maxLength: 8 }).map((tlvs) => concatBytes(PREFIX, ...tlvs, tlv(0)));

describe('LLDP parsing under fuzzing', () => {
  it('random bytes: an LldpFrame or a ParseError', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (b) => survives(parseLldpFrame, b) && survives(parseLldpdu, b)),
      { numRuns: 2000 },
    );
  });

  it('an Ethernet header for LLDP, then random bytes', () => {
    const tail = fc.uint8Array({ maxLength: 600 }).map((t) => concatBytes(FRAMES[0]!.subarray(0, 14), t));
    fc.assert(
      fc.property(tail, (b) => survives(parseLldpFrame, b)),
      { numRuns: 2000 },
    );
  });

  it("lldpd's frames with bit flips, truncations and lying TLV lengths", () => {
    fc.assert(
      fc.property(mutatedFrame, (b) => survives(parseLldpFrame, b)),
      { numRuns: 4000 },
    );
  });

  it('valid mandatory TLVs, then random optional and organizationally specific TLVs: always a value', () => {
    fc.assert(
      fc.property(knownTail, (b) => {
        printable(parseLldpFrame(b));
        return true;
      }),
      { numRuns: 3000 },
    );
  });

  it("lldpd's pcap files mutated: frames or a ParseError, and each frame the same", () => {
    const files = CAPTURES.filter((n) => n.endsWith('.pcap')).map(captureBytes);
    const mutated = fc.constantFrom(...files).chain((file) =>
      fc.oneof(
        fc.nat({ max: file.length }).map((n) => file.subarray(0, n)),
        fc.tuple(fc.nat({ max: file.length - 4 }), fc.nat({ max: 0xffffffff })).map(([at, v]) => {
          const copy = new Uint8Array(file);
          new DataView(copy.buffer).setUint32(at, v, true);
          return copy;
        }),
      ),
    );
    fc.assert(
      fc.property(mutated, (bytes) => {
        let frames: Uint8Array[];
        try {
          frames = readCaptureFile(bytes);
        } catch (err) {
          if (err instanceof ParseError) return true;
          throw err;
        }
        return frames.every((f) => survives(parseLldpFrame, f));
      }),
      { numRuns: 2000 },
    );
  });
});
