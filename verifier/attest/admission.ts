import type { EkKind } from '../../shared/wire/schemas.js';
import type { ProtocolVerdict, Verdict } from '../../shared/wire/verdicts.js';
import type { AttestedFacts, Authorship, Device, JournalKind } from '../inventory/device.js';
import type { Claim } from '../state/claim.js';
import { checkCabling, type SeenPort } from './cabling.js';
import type { RunKind } from '../reconcile/desired.js';
import type { OpenRun } from '../reconcile/open-run.js';
import { lacksLine, missingFields } from '../reconcile/run-needs.js';
import { bootRefusal, type BootPolicy, type MeasuredBoot } from './boot-policy.js';
import { ATTEST_LINES } from './lines.js';
import { decide } from './policy.js';

export interface AdmissionInput {
  serial: string;
  /** The quoted boot: its report's facts, when it attested, and the peer it came from. */
  boot: { mac: string; bootId: string; at: string; peer: string } & MeasuredBoot;
  /** The measured-boot policy of the device's class. */
  policy: BootPolicy;
  device: Device | null;
  /** The EKs this TPM proved, with the certificates that came along (a claim shows them). */
  proven: Claim['eks'];
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
export type Provision =
  | { issue: true; run: string | null; kind: RunKind; intake: boolean /** Once the code is issued (it may yet be refused). */; onIssue: AdmissionWrite[] }
  | { issue: false; reason: string };

/**
 * One write an attestation makes, in the order given: the service carries them out and decides
 * none. The claim is the one `fleet attest approve` reads; the attested facts are the report's.
 */
export type AdmissionWrite =
  | { to: 'store'; op: 'keepClaim'; claim: Claim }
  | { to: 'store'; op: 'dropClaim'; serial: string }
  | { to: 'inventory'; op: 'recordVerdict'; device: Device; verdict: Verdict }
  | { to: 'inventory'; op: 'recordAttested'; device: Device; facts: AttestedFacts }
  | { to: 'inventory'; op: 'journal'; device: Device; kind: JournalKind; message: string }
  | { to: 'inventory'; op: 'setDesiredAction'; device: Device; action: RunKind }
  /** A boot of this open run was refused its code: wipe-disk wipes nothing, and a later boot may resume the run. */
  | { to: 'store'; op: 'codeRefused'; run: string };

export interface Admission {
  verdict: Verdict;
  /** For the audit line: names the node and the kinds. */
  reason: string;
  refused?: { kind: EkKind; hash: string; approved: string };
  writes: AdmissionWrite[];
  provision: Provision;
}

/**
 * Whether this TPM proved every EK the device's entry approves: only then do the binding's
 * authorship and the device's run matter (the caller reads them for admit()), and only then does
 * a refusal of its boot reach the device. A claim of another machine's serial learns nothing.
 */
export function provesOwnTpm(device: Device | null, serial: string, proven: ReadonlyArray<{ kind: EkKind; hash: string }>): device is Device {
  return !!device && decide({ hostname: device.hostname, binding: device.binding }, serial, proven).verdict === 'attested';
}

/** A boot whose quote or event log does not hold: its verdict reaches the device only when its TPM is the device's own. */
export function refuseBoot(
  device: Device | null,
  serial: string,
  proven: ReadonlyArray<{ kind: EkKind; hash: string }>,
  refusal: { verdict: ProtocolVerdict; message: string },
): Admission {
  return {
    verdict: refusal.verdict,
    reason: refusal.message,
    writes: provesOwnTpm(device, serial, proven) ? [{ to: 'inventory', op: 'recordVerdict', device, verdict: refusal.verdict }] : [],
    provision: { issue: false, reason: refusal.verdict },
  };
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
  const { boot } = input;
  if (d.verdict === 'pending-approval') {
    const claim: Claim = { serial: input.serial, at: boot.at, mac: boot.mac, peer: boot.peer, switchPort: input.seen.port, eks: input.proven };
    const writes: AdmissionWrite[] = [{ to: 'store', op: 'keepClaim', claim }];
    if (device) writes.push({ to: 'inventory', op: 'recordVerdict', device, verdict: d.verdict });
    return { verdict: d.verdict, reason: d.message, writes, provision: none };
  }
  if (d.verdict !== 'attested' || !device) {
    // ek-hash-mismatch, ek-missing: the runbook's "Nothing was written"; the audit names the refused hash.
    return {
      verdict: d.verdict,
      reason: d.message,
      ...(d.refused ? { refused: d.refused } : {}),
      writes: [],
      provision: none,
    };
  }
  if (!input.authorship?.authored) {
    const why = input.authorship?.reason ?? "the binding's authorship was not checked";
    return {
      verdict: 'ek-binding-unauthored',
      reason: why,
      writes: [
        { to: 'inventory', op: 'recordVerdict', device, verdict: 'ek-binding-unauthored' },
        { to: 'inventory', op: 'journal', device, ...ATTEST_LINES.unauthored(device.hostname, why) },
      ],
      provision: { issue: false, reason: 'ek-binding-unauthored' },
    };
  }
  const facts: AttestedFacts = {
    at: boot.at,
    mac: boot.mac,
    bootId: boot.bootId,
    eks: Object.fromEntries(input.proven.map((e) => [e.kind, e.hash])),
    secureBoot: boot.secureBoot,
    switchPort: input.seen.port,
  };
  const writes: AdmissionWrite[] = [
    { to: 'inventory', op: 'recordAttested', device, facts },
    { to: 'store', op: 'dropClaim', serial: device.serial },
    { to: 'inventory', op: 'journal', device, ...ATTEST_LINES.attested(device.hostname, boot.mac, input.seen.port ?? 'none') },
  ];
  // Said whatever the class asks: the runbook's last check is the installed node's secureBoot: true.
  if (boot.secureBoot === false) writes.push({ to: 'inventory', op: 'journal', device, ...ATTEST_LINES.secureBootOff(device.hostname) });
  if (boot.secureBoot === null)
    writes.push({ to: 'inventory', op: 'journal', device, ...ATTEST_LINES.secureBootUnknown(device.hostname, boot.secureBootProblem ?? 'no reading') });
  return { verdict: 'attested', reason: d.message, writes, provision: provisionFor(input, device, writes) };
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

function provisionFor(input: AdmissionInput, device: Device, writes: AdmissionWrite[]): Provision {
  const provision = checkedProvision(input, device, writes);
  const { run } = input;
  if (!provision.issue && run && !run.resumes) writes.push({ to: 'store', op: 'codeRefused', run: run.name });
  return provision;
}

function checkedProvision(input: AdmissionInput, device: Device, writes: AdmissionWrite[]): Provision {
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
    writes.push({ to: 'inventory', op: 'journal', device, ...lacksLine(device.hostname, missing) });
    return { issue: false, reason: `no provision: the device lacks ${missing.join(', ')}` };
  }
  const cabling = checkCabling(device.hostname, device.switchPort!, input.seen);
  if (!cabling.ok) {
    writes.push({ to: 'inventory', op: 'journal', device, ...cabling.journal });
    return { issue: false, reason: `no provision: ${cabling.journal.message}` };
  }
  const refused = bootRefusal(input.policy, input.boot);
  if (refused !== null) {
    writes.push({ to: 'inventory', op: 'journal', device, ...ATTEST_LINES.bootRefused(device.hostname, refused) });
    return { issue: false, reason: `no provision: ${refused}` };
  }
  if (run && !run.resumes) return { issue: true, run: run.name, kind, intake: false, onIssue: [] };
  // An intake's run, or a resumed one, is asked for once its code is issued: the pass that starts the run takes that code.
  const said = run ? ATTEST_LINES.resumed(device.hostname, run.name) : ATTEST_LINES.intake(device.hostname);
  const onIssue: AdmissionWrite[] = [
    ...(device.desiredAction !== kind ? [{ to: 'inventory', op: 'setDesiredAction', device, action: kind } as const] : []),
    { to: 'inventory', op: 'journal', device, ...said },
  ];
  return { issue: true, run: null, kind, intake: true, onIssue };
}
