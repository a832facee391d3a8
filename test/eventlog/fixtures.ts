/**
 * The recorded event logs in testdata/eventlogs (copied with their licences) and helpers that
 * build forged variants of them event by event.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { concatBytes } from '../../shared/bytes/hex.js';
import type { EventLog, TcgEvent } from '../../shared/eventlog/log.js';
import { HASH_ALGORITHMS } from '../../shared/eventlog/types.js';
import { TESTDATA } from '../testdata.js';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));
export const TOOLS = `${TESTDATA}eventlogs/tpm2-tools/`;
export const KEYLIME = `${TESTDATA}eventlogs/keylime/`;

/** tpm2-tools' final PCRs: log file → bank → PCR index → hex. */
export const EXPECTED_PCRS = (
  JSON.parse(readFileSync(`${TOOLS}EXPECTED_PCRS.json`, 'utf8')) as { expected_pcrs: Record<string, Record<string, Record<string, string>>> }
).expected_pcrs;

export function toolsLog(name: string): Uint8Array {
  return readFileSync(TOOLS + name);
}

/** A keylime log; mb_log.b64 is decoded from its base64 text. */
export function keylimeLog(name: string): Uint8Array {
  const bytes = readFileSync(KEYLIME + name);
  return name.endsWith('.b64') ? new Uint8Array(Buffer.from(bytes.toString('latin1'), 'base64')) : bytes;
}

/** tpm2-tools' decoded rendering of a log, for values its own test suite asserts. */
export function prettyYaml(name: string): string {
  return readFileSync(`${TOOLS}event-pretty/${name}.yaml`, 'utf8');
}

/** The raw bytes of each event of `log`, in order. */
export function eventBytes(log: EventLog): Uint8Array[] {
  return Array.from(log, (e) => log.bytes.subarray(e.offset, e.offset + e.size));
}

/** A log rebuilt from event records (see `eventBytes`). */
export function rebuild(events: Uint8Array[]): Uint8Array {
  return concatBytes(...events);
}

/** A copy of an event record with its EventType replaced (the field no digest covers). */
export function withType(event: Uint8Array, type: number): Uint8Array {
  const copy = new Uint8Array(event);
  new DataView(copy.buffer).setUint32(4, type, true);
  return copy;
}

/** Index of the first event matching `predicate`; fails the test when there is none. */
export function findEvent(log: EventLog, predicate: (e: TcgEvent) => boolean): number {
  for (const e of log) if (predicate(e)) return e.index;
  throw new Error('no such event in the fixture');
}

/** A new event record for `log`'s banks, its digests the hashes of `measured` (its data by default). */
export function measuredEvent(log: EventLog, pcr: number, type: number, data: Uint8Array, measured: Uint8Array = data): Uint8Array {
  const digests = log.banks.map((b) => ({ id: b.algId, digest: createHash(b.algorithm!.nodeName).update(measured).digest() }));
  const out = new Uint8Array(16 + digests.reduce((n, d) => n + 2 + d.digest.length, 0) + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, pcr, true);
  view.setUint32(4, type, true);
  view.setUint32(8, digests.length, true);
  let at = 12;
  for (const d of digests) {
    view.setUint16(at, d.id, true);
    out.set(d.digest, at + 2);
    at += 2 + d.digest.length;
  }
  view.setUint32(at, data.length, true);
  out.set(data, at + 4);
  return out;
}

/** An event record whose digests are `digests` (by bank name), as extended by someone who logs `data` beside them. */
export function eventWithDigests(log: EventLog, pcr: number, type: number, data: Uint8Array, digests: ReadonlyMap<string, Uint8Array>): Uint8Array {
  const event = measuredEvent(log, pcr, type, data);
  let at = 12;
  for (const b of log.banks) {
    event.set(digests.get(b.name)!, at + 2);
    at += 2 + b.size;
  }
  return event;
}

/** A copy of an event record with its data overwritten by junk of the same length (the digests kept). */
export function withJunkData(event: Uint8Array): Uint8Array {
  const copy = new Uint8Array(event);
  copy.fill(0xa5, copy.length - dataLength(copy));
  return copy;
}

function dataLength(event: Uint8Array): number {
  // The record ends with EventSize then the data; walk the digests to find EventSize.
  const view = new DataView(event.buffer, event.byteOffset, event.byteLength);
  const count = view.getUint32(8, true);
  let at = 12;
  for (let k = 0; k < count; k++) at += 2 + digestSize(view.getUint16(at, true));
  return view.getUint32(at, true);
}

function digestSize(algId: number): number {
  const size = HASH_ALGORITHMS.get(algId)?.size;
  if (size === undefined) throw new Error(`no size for algorithm 0x${algId.toString(16)}`);
  return size;
}

/** UEFI_VARIABLE_DATA: the variable `name` of vendor `guid` (8-4-4-4-12 form) holding `data`. */
export function variableData(guid: string, name: string, data: Uint8Array): Uint8Array {
  const hex = guid.replaceAll('-', '');
  const g = Buffer.from(hex, 'hex');
  const guidBytes = Buffer.concat([
    Buffer.from(g.subarray(0, 4)).reverse(),
    Buffer.from(g.subarray(4, 6)).reverse(),
    Buffer.from(g.subarray(6, 8)).reverse(),
    g.subarray(8),
  ]);
  const nameBytes = Buffer.from(name, 'utf16le');
  const sizes = Buffer.alloc(16);
  sizes.writeBigUInt64LE(BigInt(name.length), 0);
  sizes.writeBigUInt64LE(BigInt(data.length), 8);
  return new Uint8Array(Buffer.concat([guidBytes, sizes, nameBytes, data]));
}
