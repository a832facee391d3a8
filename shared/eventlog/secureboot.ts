/**
 * Secure Boot state from PCR 7, read from what the quote proves (proven.ts). Firmware measures its
 * Secure Boot configuration (the SecureBoot variable, PK, KEK, db, dbx) into PCR 7, then a
 * separator; later PCR 7 events are authorities, the db entries that let each image run. The
 * state is the SecureBoot variable measured before PCR 7's first separator, the separator found
 * by its digest and the variable by its proven data, whatever either event calls itself: a
 * forger can relabel events and append new ones, but cannot put an event before the separator
 * the firmware extended, nor give the firmware's digest other data. Configuration measured after
 * that separator is someone other than the firmware speaking, so the log cannot tell.
 */
import { ParseError } from '../errors.js';
import { decodeVariable, type VariableData } from './decode.js';
import type { EventLog } from './log.js';
import { dataProven, provenBank, separatorOf } from './proven.js';
import * as T from './types.js';

export const EFI_GLOBAL_VARIABLE_GUID = '8be4df61-93ca-11d2-aa0d-00e098032b8c';
const IMAGE_SECURITY_DATABASE_GUID = 'd719b2cb-3d3a-4596-a3bc-dad00e67656f';

/**
 * The variables that configure Secure Boot, by vendor GUID. db is not among them: after the
 * separator the firmware measures each db entry that authorised an image under the name db.
 */
const CONFIGURATION = new Map([
  [EFI_GLOBAL_VARIABLE_GUID, new Set(['SecureBoot', 'PK', 'KEK', 'DeployedMode', 'AuditMode'])],
  [IMAGE_SECURITY_DATABASE_GUID, new Set(['dbx', 'dbt', 'dbr'])],
]);

export interface SecureBootState {
  /** `true`/`false` as the proven SecureBoot variable says; `null` when the log cannot tell. */
  readonly enabled: boolean | null;
  /** Why `enabled` is `null`, one line each; empty when the answer stands. */
  readonly problems: readonly string[];
}

/** Read in the bank `bankName`: the quoted one (fleetd's is SHA-256). */
export function secureBootState(log: EventLog, bankName = 'sha256'): SecureBootState {
  const bank = provenBank(log, bankName);
  if (bank < 0) return { enabled: null, problems: [`the log has no ${bankName} bank`] };
  const problems: string[] = [];
  let separator: number | undefined;
  let secureBoot: { index: number; variable: VariableData } | undefined;
  for (let i = 0; i < log.length; i++) {
    if (log.pcrOf(i) !== 7 || log.typeOf(i) === T.EV_NO_ACTION) continue;
    const where = describe(log, i);
    const kind = separatorOf(log, i, bank);
    if (kind) {
      if (separator !== undefined) problems.push(`${where} is a second separator on PCR 7 (the first is event ${separator})`);
      else separator = i;
      if (kind === 'error') problems.push(`${where}: the firmware's separator reports an error`);
      continue;
    }
    // An event whose data is not proven says nothing, whatever its label: shim's authorities are such.
    if (!dataProven(log, i, bank)) continue;
    const variable = configurationVariable(log.dataOf(i));
    if (!variable) continue;
    if (separator !== undefined) {
      problems.push(`${where}: ${variable.name} measured after PCR 7's separator (event ${separator}), where only the firmware configures Secure Boot`);
      continue;
    }
    if (variable.name !== 'SecureBoot') continue;
    if (variable.trailing !== 0) problems.push(`${where}: ${variable.trailing} bytes after the SecureBoot variable's data`);
    if (secureBoot) problems.push(`${where} measures SecureBoot again (first in event ${secureBoot.index})`);
    else secureBoot = { index: i, variable };
  }
  if (separator === undefined) problems.push("PCR 7 has no separator, so the firmware's configuration cannot be told from what came after");
  if (!secureBoot) problems.push("no proven SecureBoot variable before PCR 7's separator");
  if (problems.length > 0) return { enabled: null, problems };
  const data = secureBoot!.variable.data;
  return { enabled: data.length === 1 && data[0] === 1, problems };
}

function describe(log: EventLog, i: number): string {
  return `event ${i} (PCR ${log.pcrOf(i)}, labelled ${T.eventTypeName(log.typeOf(i))})`;
}

/** The data as a variable that configures Secure Boot, or undefined. */
function configurationVariable(raw: Uint8Array): VariableData | undefined {
  // UEFI_VARIABLE_DATA opens with the GUID; most PCR 7 data is not a variable fleet needs decoded.
  if (raw.length < 16) return undefined;
  let variable: VariableData;
  try {
    variable = decodeVariable(raw);
  } catch (err) {
    if (err instanceof ParseError) return undefined;
    throw err;
  }
  return CONFIGURATION.get(variable.guid)?.has(variable.name) ? variable : undefined;
}
