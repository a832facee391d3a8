/**
 * Secure Boot state from PCR 7's events, read defensively. A quote proves the sequence of digests,
 * not the event data or the EventType beside them, so the state is `true` only when the SecureBoot
 * variable's data hashes to its digest, reads exactly 01, sits in the event type and place the
 * firmware uses, and PCR 7 shows nothing a forger or a confused firmware would leave behind.
 */
import { ParseError } from '../errors.js';
import { decodeVariable, type VariableData } from './decode.js';
import { checkDataDigests } from './digests.js';
import type { EventLog } from './log.js';
import * as T from './types.js';

export const EFI_GLOBAL_VARIABLE_GUID = '8be4df61-93ca-11d2-aa0d-00e098032b8c';

export interface SecureBootState {
  /** `true`/`false` as the verified SecureBoot variable says; `null` when the log cannot tell. */
  readonly enabled: boolean | null;
  /** Why `enabled` is `null`, one line each; empty when the answer stands. */
  readonly problems: readonly string[];
}

/** Event types firmware measures into PCR 7 (PC Client PFP 1.06, section 3.3.4.8). */
const PCR7_TYPES = new Set([
  T.EV_EFI_VARIABLE_DRIVER_CONFIG,
  T.EV_EFI_VARIABLE_AUTHORITY,
  T.EV_SEPARATOR,
  T.EV_EFI_ACTION,
  T.EV_EFI_SPDM_DEVICE_POLICY,
  T.EV_EFI_SPDM_DEVICE_AUTHORITY,
]);

export function secureBootState(log: EventLog): SecureBootState {
  const problems: string[] = [];
  const separators = new Map<number, number>();
  let secureBoot: { index: number; variable: VariableData } | undefined;
  for (let i = 0; i < log.length; i++) {
    const type = log.typeOf(i);
    if (type === T.EV_NO_ACTION) continue;
    const pcr = log.pcrOf(i);
    if (type === T.EV_SEPARATOR) {
      const first = separators.get(pcr);
      if (first !== undefined) problems.push(`${describe(i, pcr, type)} is a second separator on PCR ${pcr} (the first is event ${first})`);
      else separators.set(pcr, i);
    }
    if (pcr !== 7) continue;
    const where = describe(i, pcr, type);
    if (!PCR7_TYPES.has(type)) problems.push(`${where}: firmware does not measure this event type into PCR 7`);
    if (type === T.EV_SEPARATOR) checkSeparator(log, i, where, problems);
    // Shim logs EV_EFI_VARIABLE_AUTHORITY data that does not hash to its digest; nothing here reads
    // that data, so only the events the state depends on must verify.
    const check = type === T.EV_EFI_VARIABLE_AUTHORITY ? undefined : checkDataDigests(log, i);
    if (check === 'mismatch') problems.push(`${where}: event data does not hash to its digest`);
    if (check === 'unchecked') problems.push(`${where}: no digest fleet can check`);
    if (type === T.EV_EFI_VARIABLE_DRIVER_CONFIG && separators.has(7)) {
      problems.push(`${where}: Secure Boot configuration measured after PCR 7's separator`);
    }
    const variable = secureBootVariable(log, i);
    if (!variable) continue;
    // Found by content: a relabelled SecureBoot event must not slip out of view.
    if (type !== T.EV_EFI_VARIABLE_DRIVER_CONFIG)
      problems.push(`${where} holds the SecureBoot variable, which firmware measures as EV_EFI_VARIABLE_DRIVER_CONFIG`);
    if (variable.trailing !== 0) problems.push(`${where}: ${variable.trailing} bytes after the SecureBoot variable's data`);
    if (check !== 'match') continue;
    if (secureBoot) problems.push(`${where} measures SecureBoot again (first in event ${secureBoot.index})`);
    else secureBoot = { index: i, variable };
  }
  if (!secureBoot) problems.push('no verified SecureBoot variable in PCR 7');
  if (problems.length > 0) return { enabled: null, problems };
  const data = secureBoot!.variable.data;
  return { enabled: data.length === 1 && data[0] === 1, problems };
}

function checkSeparator(log: EventLog, i: number, where: string, problems: string[]): void {
  const data = log.dataOf(i);
  // 0x00000000 ends pre-boot normally; anything else (1, 0xFFFFFFFF) reports a firmware error.
  if (data.length !== 4 || data.some((b) => b !== 0)) problems.push(`${where}: not a normal (zero) separator`);
}

function describe(i: number, pcr: number, type: number): string {
  return `event ${i} (PCR ${pcr}, ${T.eventTypeName(type)})`;
}

/** EFI_GLOBAL_VARIABLE as it sits in UEFI_VARIABLE_DATA, then UnicodeNameLength 10 ("SecureBoot"). */
const SECURE_BOOT_PREFIX = new Uint8Array([
  0x61, 0xdf, 0xe4, 0x8b, 0xca, 0x93, 0xd2, 0x11, 0xaa, 0x0d, 0x00, 0xe0, 0x98, 0x03, 0x2b, 0x8c, 10, 0, 0, 0, 0, 0, 0, 0,
]);

/** The event's data as the SecureBoot variable (EFI global GUID), or undefined. */
function secureBootVariable(log: EventLog, i: number): VariableData | undefined {
  // A byte comparison first: decoding every PCR 7 variable (UTF-16 names, GUID strings) is most of the cost.
  const raw = log.dataOf(i);
  if (raw.length < SECURE_BOOT_PREFIX.length) return undefined;
  for (let k = 0; k < SECURE_BOOT_PREFIX.length; k++) if (raw[k] !== SECURE_BOOT_PREFIX[k]) return undefined;
  let variable: VariableData;
  try {
    variable = decodeVariable(log.dataOf(i));
  } catch (err) {
    if (err instanceof ParseError) return undefined;
    throw err;
  }
  return variable.guid === EFI_GLOBAL_VARIABLE_GUID && variable.name === 'SecureBoot' ? variable : undefined;
}
