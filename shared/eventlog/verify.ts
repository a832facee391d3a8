/**
 * Does the log explain the quoted PCRs? Every PCR the log measures must replay to its quoted value;
 * PCRs the log does not measure (IMA's PCR 10, ...) are not judged here. One firmware bug is
 * recognised by name: firmware that extends PCR 5 with the two ExitBootServices actions without
 * logging them (the TPM saw them, the log did not).
 */
import { createHash } from 'node:crypto';
import { bytesEqual } from '../bytes/hex.js';
import { errorMessage } from '../errors.js';
import type { EventLog } from './log.js';
import { extendPcr, replayBank } from './replay.js';
import { EV_EFI_ACTION, EV_NO_ACTION } from './types.js';

export interface PcrComparison {
  readonly ok: boolean;
  /** PCRs the log measures whose replayed value is not the quoted one (or is not quoted), ascending. */
  readonly mismatched: number[];
  /** What a person should know: forgiven firmware quirks, PCRs not judged, why a bank failed. */
  readonly notes: string[];
}

export const EXIT_BOOT_SERVICES_INVOCATION = 'Exit Boot Services Invocation';
export const EXIT_BOOT_SERVICES_SUCCEEDED = 'Exit Boot Services Returned with Success';
const EBS_PCR = 5;

export function comparePcrs(log: EventLog, bank: string, quoted: Map<number, Uint8Array>): PcrComparison {
  const measured = measuredPcrs(log);
  const notes: string[] = [];
  let values: Map<number, Uint8Array>;
  try {
    values = replayBank(log, bank);
  } catch (err) {
    return { ok: false, mismatched: measured, notes: [errorMessage(err)] };
  }
  const mismatched: number[] = [];
  for (const pcr of measured) {
    const replayed = values.get(pcr)!;
    const quote = quoted.get(pcr);
    if (!quote) {
      mismatched.push(pcr);
      notes.push(`PCR ${pcr} has events in the log but is not in the quote`);
    } else if (!bytesEqual(replayed, quote)) {
      if (pcr === EBS_PCR && matchesWithExitBootServices(log, bank, replayed, quote)) {
        notes.push(
          `PCR ${pcr} matches only with the "${EXIT_BOOT_SERVICES_INVOCATION}" and "${EXIT_BOOT_SERVICES_SUCCEEDED}" events appended: the firmware measured them without logging them`,
        );
      } else {
        mismatched.push(pcr);
      }
    }
  }
  const unjudged = [...quoted.keys()].filter((pcr) => !values.has(pcr)).sort((a, b) => a - b);
  if (unjudged.length) notes.push(`PCR ${unjudged.join(', ')} ${unjudged.length === 1 ? 'has' : 'have'} no events in the log: not judged`);
  return { ok: mismatched.length === 0, mismatched, notes };
}

/** PCRs with at least one extended (not EV_NO_ACTION) event, ascending. */
function measuredPcrs(log: EventLog): number[] {
  const pcrs = new Set<number>();
  for (let i = 0; i < log.length; i++) if (log.typeOf(i) !== EV_NO_ACTION) pcrs.add(log.pcrOf(i));
  return [...pcrs].sort((a, b) => a - b);
}

function matchesWithExitBootServices(log: EventLog, bank: string, replayed: Uint8Array, quote: Uint8Array): boolean {
  // Only the firmware that left the success event out: a log that has it explains PCR 5 itself.
  if (hasAction(log, EBS_PCR, EXIT_BOOT_SERVICES_SUCCEEDED)) return false;
  const algorithm = log.banks[log.bankIndex(bank)]!.algorithm!;
  let value = replayed;
  for (const action of [EXIT_BOOT_SERVICES_INVOCATION, EXIT_BOOT_SERVICES_SUCCEEDED]) {
    value = extendPcr(algorithm, value, createHash(algorithm.nodeName).update(action, 'ascii').digest());
  }
  return bytesEqual(value, quote);
}

function hasAction(log: EventLog, pcr: number, text: string): boolean {
  const want = Buffer.from(text, 'ascii');
  for (let i = 0; i < log.length; i++) {
    if (log.typeOf(i) === EV_EFI_ACTION && log.pcrOf(i) === pcr && bytesEqual(log.dataOf(i), want)) return true;
  }
  return false;
}
