import { DEFAULT_BOOT_POLICY } from '../../verifier/attest/boot-policy.js';
import { describe, expect, it } from 'vitest';
import { admit, type AdmissionInput } from '../../verifier/attest/admission.js';
import type { Device } from '../../verifier/inventory/device.js';
import { desiredHardware, desiredMachine } from '../../verifier/reconcile/desired.js';
import type { KubeObject } from '../../verifier/reconcile/objects.js';
import { openRun } from '../../verifier/reconcile/open-run.js';
import { plan, type Step, type World } from '../../verifier/reconcile/plan.js';
import type { InstallCodeRecord } from '../../verifier/state/local-store.js';
import { classMap, device as fixtureDevice, INSTALLER, MAC, NS, reconcileConfig, TALOS } from '../tinkerbell/fixtures.js';

/**
 * The lab's loop as its pure decisions, one after the other, as fleetd makes them: admission of an
 * attestation, a reconcile pass, the writes it plans (applied here by hand), and admission of the
 * machine's next attestation. What each gets is what the step before left.
 */
const NOW = Date.parse('2026-12-01T08:00:00Z');
const cfg = reconcileConfig();
const classes = classMap(TALOS, { name: 'controlplane', payload: 'talos', installerImage: INSTALLER, controlPlane: true });
const A = 'a'.repeat(64);
const PORT5 = { port: 'Port 5', names: ['Port 5'] };

/** Declared, never attested: no MAC recorded yet. */
const device = (over: Partial<Device>): Device => fixtureDevice('n1', { mac: undefined, binding: { rsa2048: A }, ...over });

/** The attestation of boot `bootId`: the device as the inventory then holds it, after admission's own writes. */
function attest(d: Device, bootId: string, run: ReturnType<typeof openRun>, autoProvision = true) {
  const input: AdmissionInput = {
    serial: d.serial,
    boot: { mac: MAC, bootId, secureBoot: true, secureBootProblem: null, images: [], at: new Date(NOW).toISOString(), peer: '10.0.1.11' },
    policy: DEFAULT_BOOT_POLICY,
    device: d,
    proven: [{ kind: 'rsa2048', hash: A, certificate: null }],
    authorship: { authored: true },
    seen: PORT5,
    run,
    autoProvision,
  };
  const a = admit(input);
  const recorded = a.writes.find((w) => w.op === 'recordAttested');
  if (!recorded) throw new Error(`admission recorded no attestation: ${a.verdict} ${a.reason}`);
  return { a, device: { ...d, mac: recorded.facts.mac, attested: recorded.facts } };
}

function world(d: Device, workflows: KubeObject[], codes: InstallCodeRecord[]): World {
  const machine = desiredMachine(d, NS);
  return {
    now: NOW,
    devices: [d],
    classes,
    hardware: d.mac ? [desiredHardware(d, NS, false)] : [],
    machines: machine ? [machine] : [],
    workflows,
    jobs: [],
    templates: new Set(['provision', 'provision-image']),
    noted: new Set(),
    codes: new Map(codes.map((c) => [c.device, c])),
    classInputs: new Map([
      ['worker', null],
      ['controlplane', null],
      ['nixos', null],
    ]),
  };
}

/** A pass's writes to the inventory and to Tinkerbell, applied as apply.ts would. */
function applied(d: Device, steps: Step[]): { device: Device; workflow: KubeObject | undefined; job: boolean } {
  let next = d;
  let workflow: KubeObject | undefined;
  for (const s of steps) {
    if (s.to === 'inventory' && s.op === 'recordRun') next = { ...next, lastRun: s.run, desiredAction: undefined };
    if (s.to === 'kube' && s.op === 'create' && s.kind === 'Workflow')
      workflow = { ...s.object, metadata: { ...s.object.metadata, creationTimestamp: new Date(NOW).toISOString() } };
  }
  return { device: next, workflow, job: steps.some((s) => s.to === 'kube' && s.op === 'create' && s.kind === 'Job') };
}

describe('admit → plan → admit', () => {
  it("a control plane that waits in HookOS: desired_action starts a power-cycled run, and the next boot's attestation gets its code", () => {
    const first = attest(device({ className: 'controlplane', controlPlane: true }), 'boot-1', null);
    expect(first.a.provision).toEqual({ issue: false, reason: 'no provision: a control plane waits for desired_action provision' });

    const pass = applied({ ...first.device, desiredAction: 'provision' }, plan(world({ ...first.device, desiredAction: 'provision' }, [], []), cfg).steps);
    expect(pass.workflow?.metadata.labels?.['fleet.lolwtf.ca/boot']).toBe('bmc');
    expect(pass.job).toBe(true);
    expect(pass.device.desiredAction).toBeUndefined();

    const second = attest(pass.device, 'boot-2', openRun(pass.device, pass.workflow!));
    expect(second.a.provision).toMatchObject({ issue: true, run: pass.workflow!.metadata.name, kind: 'provision', intake: false, onIssue: [] });
  });

  it('the intake of a planned worker: the code at its attestation, a run with no power cycle that takes that code', () => {
    const first = attest(device({}), 'boot-1', null);
    expect(first.a.provision).toMatchObject({ issue: true, run: null, kind: 'provision', intake: true });
    const code: InstallCodeRecord = {
      device: 'n1',
      hostname: 'n1',
      sha256: 'ab'.repeat(32),
      bootId: 'boot-1',
      at: new Date(NOW).toISOString(),
      run: null,
      servedAt: null,
    };
    const steps = plan(world({ ...first.device, desiredAction: 'provision' }, [], [code]), cfg).steps;
    const pass = applied(first.device, steps);
    expect(pass.workflow?.metadata.labels?.['fleet.lolwtf.ca/boot']).toBe('hookos');
    expect(pass.job).toBe(false);
    expect(steps).toContainEqual(expect.objectContaining({ to: 'codes', op: 'bind', run: pass.workflow!.metadata.name }));
  });

  it('a reinstall of an active worker that attested minutes ago without a code for this run is power-cycled, and its next boot gets one', () => {
    const active = device({ status: 'active', lastRun: 'provision-n1-1764400000' });
    const first = attest(active, 'boot-1', null);
    expect(first.a.provision).toMatchObject({ issue: false });
    const pass = applied(first.device, plan(world({ ...first.device, desiredAction: 'provision' }, [], []), cfg).steps);
    expect(pass.job).toBe(true);
    expect(attest(pass.device, 'boot-2', openRun(pass.device, pass.workflow!)).a.provision).toMatchObject({ issue: true, run: pass.workflow!.metadata.name });
  });

  it('once the run ended, a HookOS boot gets no code: its config stays for the installed disk', () => {
    const first = attest(device({ className: 'controlplane', controlPlane: true }), 'boot-1', null);
    const pass = applied({ ...first.device, desiredAction: 'provision' }, plan(world({ ...first.device, desiredAction: 'provision' }, [], []), cfg).steps);
    const ended = { ...pass.workflow!, status: { state: 'SUCCESS' } };
    expect(openRun(pass.device, ended)).toBeNull();
    expect(attest(pass.device, 'boot-3', openRun(pass.device, ended)).a.provision).toMatchObject({ issue: false });
  });
});
