/**
 * What a quote proves of an event: the digests extended into its PCR and their order there. Its
 * EventType and, in general, its data are the log writer's to choose, so a reader believes an
 * event's data only where the digest is the hash of that data, and calls an event a separator
 * where the digest is a separator's, whatever the event calls itself. Both are judged in one bank,
 * the one the quote covers: another bank's digests are not proven and could hide a separator.
 */
import { createHash } from 'node:crypto';
import { bytesEqual } from '../bytes/hex.js';
import type { EventLog } from './log.js';

/** `normal` ends pre-boot (0x00000000); `error` reports a firmware error (0x00000001, 0xFFFFFFFF). */
export type Separator = 'normal' | 'error';

const SEPARATOR_VALUES: readonly [Separator, Uint8Array][] = [
  ['normal', new Uint8Array([0, 0, 0, 0])],
  ['error', new Uint8Array([1, 0, 0, 0])],
  ['error', new Uint8Array([0xff, 0xff, 0xff, 0xff])],
];

/** Hex digests of the separator values, per hash algorithm: computed once, compared per event. */
const separatorDigests = new Map<string, Map<string, Separator>>();

function separatorsIn(nodeName: string): Map<string, Separator> {
  let known = separatorDigests.get(nodeName);
  if (!known) {
    known = new Map(SEPARATOR_VALUES.map(([kind, value]) => [createHash(nodeName).update(value).digest('hex'), kind]));
    separatorDigests.set(nodeName, known);
  }
  return known;
}

/** The bank `name` of the log, for the functions below; -1 when it lacks it or fleet cannot hash it. */
export function provenBank(log: EventLog, name: string): number {
  const bank = log.bankIndex(name);
  return bank >= 0 && log.banks[bank]!.algorithm ? bank : -1;
}

/** Event `i`'s digest in `bank` as hex, or undefined when the bank does not measure it. */
export function digestHex(log: EventLog, i: number, bank: number): string | undefined {
  const digest = log.digestOf(i, bank);
  return digest && Buffer.from(digest).toString('hex');
}

/** Whether event `i`'s digest in `bank` is the hash of its data: only then does its data count. */
export function dataProven(log: EventLog, i: number, bank: number): boolean {
  const digest = log.digestOf(i, bank);
  const algorithm = log.banks[bank]!.algorithm!;
  return digest !== undefined && bytesEqual(createHash(algorithm.nodeName).update(log.dataOf(i)).digest(), digest);
}

/** Which separator event `i` is by its digest in `bank`, or null when its digest is no separator's. */
export function separatorOf(log: EventLog, i: number, bank: number): Separator | null {
  const hex = digestHex(log, i, bank);
  return (hex && separatorsIn(log.banks[bank]!.algorithm!.nodeName).get(hex)) || null;
}
