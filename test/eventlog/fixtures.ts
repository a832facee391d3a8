/**
 * The recorded event logs in testdata/eventlogs (copied with their licences) and helpers that
 * build forged variants of them event by event.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { concatBytes } from '../../shared/bytes/hex.js';
import type { EventLog, TcgEvent } from '../../shared/eventlog/log.js';
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
