import type { EkKind } from '../../shared/wire/schemas.js';
import type { PolicyVerdict } from '../../shared/wire/verdicts.js';
import type { Authorship, Device, JournalKind } from '../inventory/device.js';
import { checkCabling, type SeenPort } from './cabling.js';
import { decide } from './policy.js';

export interface AdmissionInput {
  serial: string;
  device: Device | null;
  proven: ReadonlyArray<{ kind: EkKind; hash: string }>;
  /** Asked only when the EKs match the binding; null otherwise. */
  authorship: Authorship | null;
  seen: SeenPort;
  autoProvision: boolean;
}

/** Whether this attested boot receives an install code, and why (the audit's `no provision` reason). */
export type Provision = { issue: true; auto: boolean } | { issue: false; reason: string };

export interface Admission {
  verdict: PolicyVerdict;
  /** For the audit line: names the node and the kinds. */
  reason: string;
  refused?: { kind: EkKind; hash: string; approved: string };
  /** What reaches the device: nothing, the verdict alone, or the attested facts and verdict. */
  writes: 'nothing' | 'verdict' | 'attested';
  /** Keep the claim for `fleet attest approve`. */
  claim: boolean;
  journal: Array<{ kind: JournalKind; message: string }>;
  provision: Provision;
}

/**
 * Admission, pure: the EK policy, then the binding's authorship, then for an attested device
 * whether a run may have its install code now. A wanted run that cannot start says why in the
 * device's journal (the runbook's `lacks`, `on port N, expected M`, `attested no switch port`).
 */
export function admit(input: AdmissionInput): Admission {
  const { device } = input;
  const d = decide(device && { hostname: device.hostname, binding: device.binding }, input.serial, input.proven);
  const none: Provision = { issue: false, reason: d.verdict };
  if (d.verdict === 'pending-approval') {
    return { verdict: d.verdict, reason: d.message, writes: device ? 'verdict' : 'nothing', claim: true, journal: [], provision: none };
  }
  if (d.verdict !== 'attested' || !device) {
    // ek-hash-mismatch, ek-missing: the runbook's "Nothing was written"; the audit names the refused hash.
    return { verdict: d.verdict, reason: d.message, ...(d.refused ? { refused: d.refused } : {}), writes: 'nothing', claim: false, journal: [], provision: none };
  }
  if (!input.authorship?.authored) {
    const why = input.authorship?.reason ?? 'the binding\'s authorship was not checked';
    return {
      verdict: 'ek-binding-unauthored',
      reason: why,
      writes: 'verdict',
      claim: false,
      journal: [{ kind: 'danger', message: `${device.hostname} was refused: ${why}. Restore the binding from git and apply it again` }],
      provision: { issue: false, reason: 'ek-binding-unauthored' },
    };
  }
  const journal: Admission['journal'] = [];
  return { verdict: 'attested', reason: d.message, writes: 'attested', claim: false, journal, provision: provisionFor(device, input.seen, input.autoProvision, journal) };
}

/** The fields a run needs, by what the run does. */
function missingFields(device: Device, action: 'provision' | 'retire'): string[] {
  const need: Array<[string, unknown]> = [
    ['install_disk', device.installDisk],
    ['install_disk_serial', device.installDiskSerial],
    ['switch_port', device.switchPort],
  ];
  if (action === 'provision') need.push(['class', device.className]);
  return need.filter(([, v]) => v === undefined).map(([k]) => k);
}

function provisionFor(device: Device, seen: SeenPort, autoProvision: boolean, journal: Admission['journal']): Provision {
  let auto = false;
  if (device.desiredAction === undefined) {
    if (device.controlPlane) return { issue: false, reason: 'no provision: a control plane waits for desired_action provision' };
    if (!autoProvision) return { issue: false, reason: 'no provision: auto-provision is off' };
    if (device.status !== 'planned') return { issue: false, reason: `no provision: the device is ${device.status}` };
    if (device.lastRun) return { issue: false, reason: `no provision: its last run ${device.lastRun} has not been repeated` };
    auto = true;
  }
  const action = device.desiredAction ?? 'provision';
  const missing = missingFields(device, action);
  if (missing.length) {
    journal.push({ kind: 'warning', message: `${device.hostname} lacks ${missing.join(', ')}; the run waits for ${missing.join(' and ')}` });
    return { issue: false, reason: `no provision: the device lacks ${missing.join(', ')}` };
  }
  const cabling = checkCabling(device.hostname, device.switchPort!, seen);
  if (!cabling.ok) {
    journal.push({ kind: 'warning', message: cabling.journal });
    return { issue: false, reason: `no provision: ${cabling.journal}` };
  }
  return { issue: true, auto };
}
