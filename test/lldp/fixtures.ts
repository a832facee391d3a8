/**
 * lldpd's recorded LLDP captures (testdata/lldp/lldpd, copied with their licence), and helpers
 * that assemble frames and pcap files around them.
 */
import { readFileSync } from 'node:fs';
import { concatBytes } from '../../shared/bytes/hex.js';
import { ByteWriter } from '../../shared/bytes/writer.js';
import { readCaptureFile } from '../../shared/lldp/capture.js';
import { TESTDATA } from '../testdata.js';

export const LLDPD = `${TESTDATA}lldp/lldpd/`;
export const CAPTURES = ['sg200.pcap', '8023bt.pcap', 'connectx.pcap', 'med-loc-malformed.pcap', 'lldp.0.raw', 'lldp.1.raw'];

export function captureBytes(name: string): Uint8Array {
  return new Uint8Array(readFileSync(LLDPD + name));
}

/** The single frame each of lldpd's captures holds. */
export function frameOf(name: string): Uint8Array {
  const frames = readCaptureFile(captureBytes(name));
  if (frames.length !== 1) throw new Error(`${name} holds ${frames.length} frames, not 1`);
  return frames[0]!;
}

/** A TLV with a header that tells the truth. */
export function tlv(type: number, ...value: number[]): Uint8Array {
  return new ByteWriter()
    .u16((type << 9) | value.length)
    .bytes(new Uint8Array(value))
    .finish();
}

/** `frame` (ending with its End TLV, as buildLldpFrame's do) with `tlvs` inserted before End. */
export function withTlvs(frame: Uint8Array, ...tlvs: Uint8Array[]): Uint8Array {
  return concatBytes(frame.subarray(0, frame.length - 2), ...tlvs, frame.subarray(frame.length - 2));
}

/** Offsets of every TLV header of a well-formed frame, End included. */
export function tlvOffsets(frame: Uint8Array): number[] {
  const offsets: number[] = [];
  for (let at = 14; at + 2 <= frame.length; ) {
    offsets.push(at);
    const header = (frame[at]! << 8) | frame[at + 1]!;
    if (header >>> 9 === 0) break;
    at += 2 + (header & 0x1ff);
  }
  return offsets;
}

/** A classic pcap file holding `frames`. */
export function pcap(frames: Uint8Array[], opts: { bigEndian?: boolean; nanoseconds?: boolean; linktype?: number } = {}): Uint8Array {
  const le = !opts.bigEndian;
  const u16 = (v: number): Uint8Array => {
    const b = new Uint8Array(2);
    new DataView(b.buffer).setUint16(0, v, le);
    return b;
  };
  const u32 = (v: number): Uint8Array => {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, v, le);
    return b;
  };
  const header = [u32(opts.nanoseconds ? 0xa1b23c4d : 0xa1b2c3d4), u16(2), u16(4), u32(0), u32(0), u32(262144), u32(opts.linktype ?? 1)];
  const records = frames.flatMap((f, i) => [u32(1_600_000_000 + i), u32(0), u32(f.length), u32(f.length), f]);
  return concatBytes(...header, ...records);
}
