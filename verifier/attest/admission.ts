import type { EkKind } from '../../shared/wire/schemas.js';
import type { PolicyVerdict } from '../../shared/wire/verdicts.js';
import type { Authorship, Device, JournalKind } from '../inventory/device.js';
import { checkCabling, type SeenPort } from './cabling.js';
import type { RunKind } from '../reconcile/desired.js';
import type { OpenRun } from '../reconcile/open-run.js';
import { lacksLine, missingFields } from '../reconcile/run-needs.js';
import { decide } from './policy.js';

export interface AdmissionInput {
  serial: string;
  device: Device | null;
  proven: ReadonlyArray<{ kind: EkKind; hash: string }>;
  /** Asked only when the EKs match the binding; null otherwise. */
  authorship: Authorship | null;
  seen: SeenPort;
  /** The device's started, unfinished run (Tinkerbell's Workflow), if any. */
  run: OpenRun | null;
  autoProvision: boolean;
}

/**
 * Whether this attested boot receives an install code, and why not (the audit's `no provision`
 * reason). A code belongs to the device's open run, or, at an intake, to the run that intake asks
 * for (`run: null`: the pass that starts it takes the code).
 */
export type Provision = { issue: true; run: string | null; kind: RunKind; intake: boolean } | { issue: false; reason: string };

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
 * whether this boot gets an install code. The run decides that, not desired_action: every admitted
 * boot of a device whose run is under way gets a code for that run (a later boot, or the agent
 * again in the same boot, gets a new one, and the earlier is void). Without a run, only the intake
 * of a planned worker does, since its run starts with the machine already waiting in HookOS. A run
 * whose boot cannot have its code says why in the device's journal (the runbook's `lacks`,
 * `on port N, expected M`, `attested no switch port`).
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
    return {
      verdict: d.verdict,
      reason: d.message,
      ...(d.refused ? { refused: d.refused } : {}),
      writes: 'nothing',
      claim: false,
      journal: [],
      provision: none,
    };
  }
  if (!input.authorship?.authored) {
    const why = input.authorship?.reason ?? "the binding's authorship was not checked";
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
  return { verdict: 'attested', reason: d.message, writes: 'attested', claim: false, journal, provision: provisionFor(input, device, journal) };
}

/** Whether no run is under way and this attestation is the intake of a planned worker, or why not. */
function intake(device: Device, autoProvision: boolean): string | null {
  if (device.desiredAction === 'retire') return 'its retirement has not started';
  if (device.controlPlane) return 'a control plane waits for desired_action provision';
  if (!autoProvision) return 'auto-provision is off';
  if (device.status !== 'planned') return `the device is ${device.status}`;
  if (device.lastRun) return `its last run ${device.lastRun} has not been repeated`;
  return null;
}

function provisionFor(input: AdmissionInput, device: Device, journal: Admission['journal']): Provision {
  const { run } = input;
  let kind: RunKind = run?.kind ?? 'provision';
  if (!run) {
    const why = intake(device, input.autoProvision);
    if (why !== null) {
      const wanted = device.desiredAction ? `; desired_action ${device.desiredAction} waits for fleetd to start its run, whose boot gets the code` : '';
      return { issue: false, reason: `no provision: ${why}${wanted}` };
    }
    kind = 'provision';
  }
  const missing = missingFields(device, kind);
  if (missing.length) {
    journal.push({ kind: 'warning', message: lacksLine(device.hostname, missing) });
    return { issue: false, reason: `no provision: the device lacks ${missing.join(', ')}` };
  }
  const cabling = checkCabling(device.hostname, device.switchPort!, input.seen);
  if (!cabling.ok) {
    journal.push({ kind: 'warning', message: cabling.journal });
    return { issue: false, reason: `no provision: ${cabling.journal}` };
  }
  return { issue: true, run: run?.name ?? null, kind, intake: !run };
}
