import { describe, expect, it } from 'vitest';
import type { Device } from '../../verifier/inventory/device.js';
import { desiredHardware, desiredMachine, desiredPowerCycle, desiredWorkflow, splitCidr } from '../../verifier/reconcile/desired.js';
import type { KubeObject } from '../../verifier/reconcile/objects.js';
import { plan, type ReconcileConfig, type Step, type World } from '../../verifier/reconcile/plan.js';
import { noteKey } from '../../verifier/reconcile/notes.js';
import { runState, viewWorkflow } from '../../verifier/reconcile/workflow-view.js';
import type { InstallCodeRecord } from '../../verifier/state/local-store.js';
import { CLOUD, classMap, device as fixtureDevice, MAC, NIXOS, NS, reconcileConfig, TALOS } from '../tinkerbell/fixtures.js';

const NOW = Date.parse('2026-11-30T08:00:00Z');
const cfg = reconcileConfig();
const classes = classMap(TALOS, NIXOS, CLOUD);

const device = (over: Partial<Device> = {}): Device =>
  fixtureDevice('n1', {
    status: 'active',
    // Its last HookOS boot, two hours ago, from its declared port.
    attested: { at: new Date(NOW - 7_200_000).toISOString(), mac: MAC, bootId: 'boot-0', eks: {}, secureBoot: true, switchPort: 'Port 5' },
    ...over,
  });

/** An install code as fleetd's store keeps it. */
const code = (bootId: string, run: string | null): InstallCodeRecord => ({
  device: 'n1',
  hostname: 'n1',
  sha256: 'ab'.repeat(32),
  bootId,
  at: new Date(NOW - 60_000).toISOString(),
  run,
  servedAt: null,
});
const recent = (bootId: string) => ({
  at: new Date(NOW - 120_000).toISOString(),
  mac: MAC,
  bootId,
  eks: {},
  secureBoot: true,
  switchPort: 'Port 5',
});

const stamp = (o: KubeObject, rv = '7', created = NOW - 3_600_000): KubeObject => ({
  ...o,
  metadata: { ...o.metadata, resourceVersion: rv, creationTimestamp: new Date(created).toISOString(), uid: 'u' },
});

/** The world as it is once a device's Hardware and Machine match. */
function steady(d: Device, extra: Partial<World> = {}): World {
  return {
    now: NOW,
    devices: [d],
    classes,
    hardware: d.mac ? [stamp(desiredHardware(d, NS, false))] : [],
    machines: desiredMachine(d, NS) ? [stamp(desiredMachine(d, NS)!)] : [],
    workflows: [],
    jobs: [],
    templates: new Set(['provision', 'provision-image']),
    noted: new Set(),
    codes: new Map(),
    classInputs: new Map([
      ['worker', null],
      ['controlplane', null],
      ['nixos', null],
    ]),
    ...extra,
  };
}

const kube = (steps: Step[]) => steps.filter((s) => s.to === 'kube').map((s) => `${s.op} ${s.kind} ${'name' in s ? s.name : s.object.metadata.name}`);
/** The object a plan creates of `kind` (its only one). */
const created = (steps: Step[], kind: string): KubeObject => {
  const step = steps.find((s) => s.to === 'kube' && s.op === 'create' && s.kind === kind);
  if (!step || !('object' in step)) throw new Error(`the plan creates no ${kind}`);
  return step.object;
};
const journals = (steps: Step[]) => steps.flatMap((s) => (s.to === 'inventory' && s.op === 'journal' ? [`${s.kind}: ${s.message}`] : []));
const invOps = (steps: Step[]) =>
  steps.flatMap((s) => (s.to === 'inventory' && s.op !== 'journal' ? [`${s.op} ${s.op === 'recordRun' ? s.run : s.status}`] : []));

/** A Workflow with a status as Tinkerbell writes it, in either spelling. */
function run(d: Device, kind: 'provision' | 'retire', createdAgo: number, status: Record<string, unknown>, boot = 'bmc'): KubeObject {
  const wf = desiredWorkflow(d, classes.get('worker'), kind, Math.floor((NOW - createdAgo) / 1000), NS, {});
  wf.metadata.labels!['fleet.lolwtf.ca/boot'] = boot;
  return { ...stamp(wf, '9', NOW - createdAgo), status };
}
const action = (name: string, state: string, startedAgo: number | null, message = '') => ({
  name,
  state,
  ...(startedAgo === null ? {} : { executionStart: new Date(NOW - startedAgo).toISOString(), executionStop: new Date(NOW - startedAgo + 1000).toISOString() }),
  message,
});

describe('steady state', () => {
  it('an unchanged world plans nothing', () => {
    const p = plan(steady(device()), cfg);
    expect(p.steps).toEqual([]);
  });

  it('fields others add to an object are not differences', () => {
    const w = steady(device());
    w.hardware[0]!.spec!.metadata = { facility: { facility_code: 'x' } };
    (w.hardware[0]!.spec!.interfaces as Array<Record<string, unknown>>)[0]!.disabled = false;
    w.machines[0]!.status = { powerState: 'on' };
    expect(plan(w, cfg).steps).toEqual([]);
  });
});

describe('Hardware and Machine', () => {
  it("creates a device's Hardware (with its MAC, address, disk) and Machine (AMT, bmc-<type>)", () => {
    const d = device();
    const p = plan({ ...steady(d), hardware: [], machines: [] }, cfg);
    expect(kube(p.steps)).toEqual(['create Hardware n1', 'create Machine n1']);
    const hw = (p.steps[0] as { object: KubeObject }).object;
    expect(hw.spec).toEqual({
      disks: [{ device: '/dev/nvme0n1' }],
      interfaces: [
        {
          dhcp: {
            mac: MAC,
            hostname: 'n1',
            arch: 'x86_64',
            uefi: true,
            lease_time: 86400,
            ip: { address: '10.0.1.11', netmask: '255.255.255.0' },
          },
          netboot: { allowPXE: false, allowWorkflow: true },
        },
      ],
    });
    expect(JSON.stringify(hw)).not.toContain('toggleAllowNetboot');
    const m = (p.steps[1] as { object: KubeObject }).object;
    expect(m.spec).toEqual({
      connection: {
        host: '10.0.1.11',
        port: 16992,
        authSecretRef: { name: 'bmc-amt', namespace: NS },
        insecureTLS: true,
        providerOptions: { intelAMT: { port: 16992, hostScheme: 'http' } },
      },
    });
    expect(m.metadata.labels).toEqual({ 'fleet.lolwtf.ca/owner': 'fleetd', 'fleet.lolwtf.ca/device': 'n1' });
  });

  it('a device without a MAC has no Hardware yet; without a BMC no Machine', () => {
    const p = plan(steady(device({ mac: undefined, bmcType: undefined })), cfg);
    expect(p.steps).toEqual([]);
  });

  it('a changed address patches the Hardware and Machine, with their resourceVersion', () => {
    const p = plan({ ...steady(device()), devices: [device({ address: '10.0.1.99/24' })] }, cfg);
    expect(kube(p.steps)).toEqual(['patch Hardware n1', 'patch Machine n1']);
    expect(p.steps[0]).toMatchObject({ resourceVersion: '7' });
  });

  it('an object fleet does not own is left alone, and the journal says so once', () => {
    const w = steady(device());
    w.hardware[0]!.metadata.labels = {};
    w.hardware[0]!.spec!.disks = [];
    const p = plan(w, cfg);
    expect(kube(p.steps)).toEqual([]);
    expect(journals(p.steps)).toEqual(['warning: n1: a Hardware n1 that fleetd does not own exists; fleetd leaves it alone']);
    expect(plan({ ...w, noted: new Set([noteKey({ host: 'n1', event: 'foreign', detail: 'Hardware' })]) }, cfg).steps).toEqual([]);
  });

  it('a bmc_type fleetd does not drive: no Machine, journaled once', () => {
    const w = steady(device({ bmcType: 'ipmi' }));
    expect(journals(plan(w, cfg).steps)).toEqual(['warning: n1: bmc_type ipmi is not one fleetd drives (amt); no Machine']);
  });

  it('deletes the owned objects of a device the inventory stops exporting, and only owned ones', () => {
    const gone = device({ hostname: 'gone' });
    const w = steady(device());
    const foreign = stamp(desiredHardware(device({ hostname: 'theirs' }), NS, false));
    foreign.metadata.labels = {};
    w.hardware.push(stamp(desiredHardware(gone, NS, false)), foreign);
    w.machines.push(stamp(desiredMachine(gone, NS)!));
    w.workflows.push(run(gone, 'provision', 60_000, { state: 'SUCCESS' }));
    expect(kube(plan(w, cfg).steps).sort()).toEqual([
      'delete Hardware gone',
      'delete Machine gone',
      `delete Workflow provision-gone-${Math.floor((NOW - 60_000) / 1000)}`,
    ]);
  });

  it('an inventory that suddenly exports nothing deletes nothing', () => {
    const p = plan({ ...steady(device()), devices: [] }, cfg);
    expect(p.steps).toEqual([]);
    expect(p.warnings).toEqual(['the inventory exports no device; 2 owned object(s) kept until it does']);
  });
});

describe('desired_action provision', () => {
  it('starts a Workflow, turns allowPXE on, power-cycles through Rufio, records the run and journals it', () => {
    const d = device({ desiredAction: 'provision' });
    const p = plan(steady(d), cfg);
    const name = `provision-n1-${NOW / 1000}`;
    expect(kube(p.steps)).toEqual(['patch Hardware n1', `create Workflow ${name}`, `create Job ${name}`]);
    const wf = created(p.steps, 'Workflow');
    expect(wf.spec).toEqual({
      templateRef: 'provision',
      hardwareRef: 'n1',
      hardwareMap: {
        device_1: MAC,
        node: 'n1',
        wipe: 'true',
        install: 'true',
        power_off: 'false',
        install_disk: '/dev/nvme0n1',
        install_disk_serial: 'S4EV',
        os: 'talos',
        installer_image: 'ghcr.io/siderolabs/installer:v1.9.5',
        image_url: '',
        image_sha256: '',
        seed_url: '',
        config_url: 'https://fleetd.lab:8443/v1/config',
      },
    });
    expect(JSON.stringify(wf)).not.toContain('toggleAllowNetboot');
    expect(
      (p.steps[0] as unknown as { patch: { spec: { interfaces: Array<{ netboot: { allowPXE: boolean } }> } } }).patch.spec.interfaces[0]!.netboot.allowPXE,
    ).toBe(true);
    expect(created(p.steps, 'Job').spec).toEqual({
      machineRef: { name: 'n1', namespace: NS },
      tasks: [{ powerAction: 'off' }, { oneTimeBootDeviceAction: { device: ['pxe'], efiBoot: true } }, { powerAction: 'on' }],
    });
    expect(invOps(p.steps)).toEqual([`recordRun ${name}`, 'setStatus planned']);
    expect(journals(p.steps)).toEqual([`info: n1: started Workflow ${name}; Rufio power-cycles it into a one-time PXE boot`]);
  });

  it("a machine whose latest boot waits in HookOS holding an intake's code starts there, and the run takes that code", () => {
    const d = device({ status: 'planned', desiredAction: 'provision', attested: recent('boot-1') });
    const p = plan(steady(d, { codes: new Map([['n1', code('boot-1', null)]]) }), cfg);
    const name = `provision-n1-${NOW / 1000}`;
    expect(kube(p.steps)).toEqual(['patch Hardware n1', `create Workflow ${name}`]);
    expect(p.steps).toContainEqual({ to: 'codes', op: 'bind', device: d, sha256: 'ab'.repeat(32), run: name });
    expect(journals(p.steps)).toEqual([`info: n1: started Workflow ${name}, with the note that the machine attested from HookOS`]);
  });

  it.each<[string, Partial<Device>, InstallCodeRecord | undefined]>([
    ['attested minutes ago with no code', { attested: recent('boot-1') }, undefined],
    ["its code is an earlier run's (a reinstall)", { attested: recent('boot-1') }, code('boot-1', 'provision-n1-1764400000')],
    ["its code is an earlier boot's", { attested: recent('boot-2') }, code('boot-1', null)],
    ["its intake's code is older than HookOS waits", {}, code('boot-0', null)],
  ])('a machine whose latest boot holds no code for this run is power-cycled: %s', (_n, over, c) => {
    const d = device({ desiredAction: 'provision', ...over });
    const p = plan(steady(d, { codes: new Map(c ? [['n1', c]] : []) }), cfg);
    expect(kube(p.steps)).toEqual(['patch Hardware n1', `create Workflow provision-n1-${NOW / 1000}`, `create Job provision-n1-${NOW / 1000}`]);
    expect(p.steps.filter((s) => s.to === 'codes')).toEqual([]);
  });

  it('without a BMC, the journal says to power it on by hand', () => {
    const d = device({ desiredAction: 'provision', bmcType: undefined, attested: recent('boot-1') });
    const p = plan({ ...steady(d), machines: [] }, cfg);
    expect(kube(p.steps)).toEqual(['patch Hardware n1', `create Workflow provision-n1-${NOW / 1000}`]);
    expect(journals(p.steps)).toEqual([
      `info: n1: started Workflow provision-n1-${NOW / 1000}; it has no BMC fleetd drives: power it on by hand so that it netboots`,
    ]);
  });

  it.each<[string, Partial<World>, ReconcileConfig, Partial<Device>, string]>([
    [
      'a Talos run without a config URL',
      {},
      { ...cfg, configUrl: undefined },
      {},
      'n1 lacks a config URL (fleet serve --config-url: install would have nothing to fetch); the run waits for a config URL',
    ],
    [
      'a disk-image run without a seed URL',
      {},
      { ...cfg, seedUrl: undefined },
      { className: 'nixos' },
      'n1 lacks a seed URL (fleet serve --seed-url: its first boot would have no seed); the run waits for a seed URL',
    ],
    [
      'a Talos class whose inputs are missing (a control plane without its bundle)',
      { classInputs: new Map([['worker', 'the class inputs of worker are missing (ENOENT); run fleet render-class-inputs and deploy them']]) },
      cfg,
      {},
      'n1 lacks its class inputs (the class inputs of worker are missing (ENOENT); run fleet render-class-inputs and deploy them); the run waits for its class inputs',
    ],
    [
      'a Talos class nobody checked',
      { classInputs: new Map() },
      cfg,
      {},
      'n1 lacks its class inputs (the class inputs of worker were not checked); the run waits for its class inputs',
    ],
    [
      'a disk-image class whose seed inputs are missing',
      { classInputs: new Map([['nixos', 'the seed inputs of nixos are missing (ENOENT); run fleet render-class-inputs and deploy them']]) },
      cfg,
      { className: 'nixos' },
      'n1 lacks its class inputs (the seed inputs of nixos are missing (ENOENT); run fleet render-class-inputs and deploy them); the run waits for its class inputs',
    ],
    [
      'no switch port recorded',
      {},
      cfg,
      { attested: { ...recent('boot-1'), switchPort: null } },
      'n1 recorded no attested switch port: its last attestation came with no LLDP frame',
    ],
    [
      'the recorded port is not the declared one',
      {},
      cfg,
      { attested: { ...recent('boot-1'), switchPort: 'Port 7' } },
      'n1 attested on port Port 7, expected Port 5',
    ],
  ])('a run that could not finish, or reach its machine, never starts: %s', (_n, world, c, over, line) => {
    const d = device({ desiredAction: 'provision', ...over });
    const p = plan(steady(d, world), c);
    expect(kube(p.steps)).toEqual([]);
    expect(invOps(p.steps)).toEqual([]);
    expect(journals(p.steps)).toEqual([`warning: ${line}`]);
    const key = (p.steps.find((s) => s.to === 'inventory') as { note: string }).note;
    expect(plan({ ...steady(d, world), noted: new Set([key]) }, c).steps).toEqual([]);
  });

  it("a power cycle Rufio failed is journaled once, with Rufio's message and the runbook's action", () => {
    const d = device({ status: 'planned' });
    const wf = run(d, 'provision', 30_000, {});
    const job = {
      ...stamp(desiredPowerCycle(d, wf.metadata.name, NS)),
      status: {
        conditions: [{ type: 'Failed', status: 'True', message: 'failed to run task power off: dial tcp 10.0.1.11:16992: connect: no route to host' }],
      },
    };
    const w = { ...steady(d), workflows: [wf], jobs: [job], hardware: [stamp(desiredHardware(d, NS, true))] };
    const p = plan(w, cfg);
    expect(kube(p.steps)).toEqual([]);
    expect(journals(p.steps)).toEqual([
      `warning: n1: Rufio's Job ${wf.metadata.name} failed to power the machine (failed to run task power off: dial tcp 10.0.1.11:16992: connect: no route to host): AMT does not answer at 10.0.1.11. Set AMT's address, or power the machine on by hand`,
    ]);
    const key = (p.steps.find((s) => s.to === 'inventory') as { note: string }).note;
    expect(plan({ ...w, noted: new Set([key]) }, cfg).steps).toEqual([]);
  });

  it('after "Set AMT\'s address", the failed power cycle goes and the next pass power-cycles at the new address', () => {
    const d = device({ status: 'planned' });
    const wf = run(d, 'provision', 30_000, {});
    const failed = {
      ...stamp(desiredPowerCycle(d, wf.metadata.name, NS)),
      status: { conditions: [{ type: 'Failed', status: 'True', message: 'dial tcp 10.0.1.11:16992: connect: no route to host' }] },
    };
    expect(failed.metadata.annotations).toEqual({ 'fleet.lolwtf.ca/bmc-address': '10.0.1.11' });
    const moved = { ...d, address: '10.0.1.21/24' };
    const w = {
      ...steady(moved),
      workflows: [wf],
      jobs: [failed],
      hardware: [stamp(desiredHardware(moved, NS, true))],
      machines: [stamp(desiredMachine(d, NS)!)],
    };
    const p = plan(w, cfg);
    expect(kube(p.steps)).toEqual(['patch Machine n1', `delete Job ${wf.metadata.name}`]);
    expect(journals(p.steps)).toEqual([
      `info: n1: AMT's address is now 10.0.1.21 (was 10.0.1.11); fleetd power-cycles the machine again for Workflow ${wf.metadata.name}`,
    ]);
    // The next pass finds no Job: a new one, for the new address.
    const next = plan({ ...w, jobs: [], machines: [stamp(desiredMachine(moved, NS)!)] }, cfg);
    const job = created(next.steps, 'Job');
    expect(job.metadata).toMatchObject({ name: wf.metadata.name, annotations: { 'fleet.lolwtf.ca/bmc-address': '10.0.1.21' } });
    // Failing there too is news: journaled, once, naming the new address.
    const again = { ...stamp(job), status: failed.status };
    const third = plan({ ...w, machines: [stamp(desiredMachine(moved, NS)!)], jobs: [again] }, cfg);
    expect(journals(third.steps)).toEqual([expect.stringContaining('AMT does not answer at 10.0.1.21')]);
  });

  it('a Job whose conditions are not a list of objects says nothing of a failure', () => {
    const d = device({ status: 'planned' });
    const wf = run(d, 'provision', 30_000, {});
    for (const conditions of [{ type: 'Failed', status: 'True' }, 'Failed', [null, { type: 'Failed', status: 'True', message: 'no route to host' }]]) {
      const job = { ...stamp(desiredPowerCycle(d, wf.metadata.name, NS)), status: { conditions } };
      const p = plan({ ...steady(d), workflows: [wf], jobs: [job], hardware: [stamp(desiredHardware(d, NS, true))] }, cfg);
      expect(journals(p.steps).map((j) => j.includes('no route to host'))).toEqual(Array.isArray(conditions) ? [true] : []);
    }
  });

  it('a disk-image class runs provision-image with its image, digest and seed URL', () => {
    const p = plan(steady(device({ desiredAction: 'provision', className: 'nixos' })), { ...cfg, seedUrl: 'https://spore/seed' });
    const wf = created(p.steps, 'Workflow');
    expect(wf.spec).toMatchObject({
      templateRef: 'provision-image',
      hardwareMap: { os: 'nixos-image', image_url: NIXOS.imageUrl, image_sha256: 'c'.repeat(64), seed_url: 'https://spore/seed' },
    });
  });

  it('a device without an address lacks it: no run starts, none labelled as having no BMC', () => {
    const d = device({ desiredAction: 'provision', address: undefined });
    const p = plan(steady(d), cfg);
    expect(kube(p.steps).filter((k) => k.includes('Workflow') || k.includes('Job'))).toEqual([]);
    expect(journals(p.steps)).toEqual(['warning: n1 lacks address; the run waits for address']);
  });

  it('a run whose Template Tinkerbell does not hold yet waits for it', () => {
    const p = plan({ ...steady(device({ desiredAction: 'provision', className: 'nixos' })), templates: new Set(['provision']) }, cfg);
    expect(kube(p.steps)).toEqual([]);
    expect(journals(p.steps)).toEqual([
      'warning: n1 lacks the Template provision-image in Tinkerbell; the run waits for the Template provision-image in Tinkerbell',
    ]);
  });

  it.each([
    ['install_disk_serial', { installDiskSerial: undefined }, 'install_disk_serial'],
    ['a MAC', { mac: undefined }, 'a MAC (it has not attested)'],
    ['a class definition', { className: 'gpu' }, "class gpu's definition"],
  ])('a device that lacks %s waits, journaled once', (_n, over, what) => {
    const d = device({ desiredAction: 'provision', ...over });
    const w = { ...steady(d), hardware: d.mac ? steady(d).hardware : [] };
    const p = plan(w, cfg);
    expect(kube(p.steps)).toEqual([]);
    expect(journals(p.steps)).toEqual([`warning: n1 lacks ${what}; the run waits for ${what}`]);
    const key = (p.steps.find((s) => s.to === 'inventory') as { note: string }).note;
    expect(plan({ ...w, noted: new Set([key]) }, cfg).steps).toEqual([]);
  });

  it.each([
    ['a double quote', { installDiskSerial: 'S4EV" #' }, 'install_disk_serial', 'a double quote'],
    ['a line break', { installDisk: '/dev/nvme0n1\n            pid: host' }, 'install_disk', 'the control character U+000A'],
    ['a backslash', { installDiskSerial: 'S4\\tEV' }, 'install_disk_serial', 'a backslash'],
  ])('a parameter the Template cannot quote (%s) starts no run, journaled once', (_n, over, key, char) => {
    const w = steady(device({ desiredAction: 'provision', ...over }));
    const p = plan(w, cfg);
    expect(kube(p.steps).filter((s) => s.startsWith('create'))).toEqual([]);
    expect(journals(p.steps)).toEqual([
      `warning: n1 lacks a quotable ${key} (it holds ${char}, and the Template quotes it); the run waits for a quotable ${key}`,
    ]);
  });

  it('a run under way is adopted, not duplicated, when fleetd stopped before recording it', () => {
    const d = device({ desiredAction: 'provision' });
    const wf = run(d, 'provision', 30_000, { state: 'STATE_RUNNING', tasks: [{ actions: [action('wipe-disk', 'STATE_RUNNING', 10_000)] }] });
    const w = { ...steady(d), workflows: [wf] };
    w.hardware = [stamp(desiredHardware(d, NS, true))];
    const p = plan(w, cfg);
    expect(kube(p.steps)).toEqual([]);
    expect(invOps(p.steps)).toEqual([`recordRun ${wf.metadata.name}`]);
    expect(journals(p.steps)).toEqual([`info: n1: started Workflow ${wf.metadata.name}; Rufio power-cycles it into a one-time PXE boot`]);
    // Once recorded, it is simply the run under way.
    expect(plan({ ...w, devices: [{ ...d, desiredAction: undefined, lastRun: wf.metadata.name }] }, cfg).steps).toEqual([]);
  });

  it('a request of another kind during a run waits for it to end; it is not dropped', () => {
    const d = device({ desiredAction: 'retire' });
    const wf = run(d, 'provision', 30_000, { state: 'RUNNING', tasks: [{ actions: [action('wipe-disk', 'RUNNING', 10_000)] }] });
    const w = { ...steady(d), workflows: [wf], hardware: [stamp(desiredHardware(d, NS, true))] };
    const p = plan(w, cfg);
    expect(kube(p.steps)).toEqual([]);
    expect(invOps(p.steps)).toEqual([]);
    expect(journals(p.steps)).toEqual([`info: n1: desired_action retire waits for Workflow ${wf.metadata.name} to end`]);
    // Once it ended, the retirement starts, and the ended run goes first: Tinkerbell's server
    // would answer the machine with that one, which refuses every action, and never serve the new one.
    const ended = { ...wf, status: { state: 'SUCCESS' } };
    const job = stamp(desiredPowerCycle(d, wf.metadata.name, NS));
    const later = plan({ ...w, workflows: [ended], jobs: [job], noted: new Set([noteKey({ run: wf.metadata.name, event: 'ended' })]) }, cfg);
    expect(kube(later.steps).slice(0, 3)).toEqual([
      `delete Workflow ${wf.metadata.name}`,
      `delete Job ${wf.metadata.name}`,
      `create Workflow retire-n1-${NOW / 1000}`,
    ]);
  });

  it('a request of the kind under way is that run: journaled, cleared, and no second run follows it', () => {
    const d = device({ desiredAction: 'provision' });
    const wf = run(d, 'provision', 30_000, { state: 'RUNNING', tasks: [{ actions: [action('wipe-disk', 'RUNNING', 10_000)] }] });
    const recorded = { ...d, lastRun: wf.metadata.name };
    const w = { ...steady(recorded), workflows: [wf], hardware: [stamp(desiredHardware(d, NS, true))] };
    const p = plan(w, cfg);
    expect(kube(p.steps)).toEqual([]);
    expect(invOps(p.steps)).toEqual([`recordRun ${wf.metadata.name}`]);
    expect(journals(p.steps)).toEqual([
      `info: n1: desired_action provision is already under way as Workflow ${wf.metadata.name}; cleared, so nothing is wiped twice. Set it again once that run has ended to run it again`,
    ]);
    // The request cleared, the run's success starts nothing.
    const ended = { ...wf, status: { state: 'SUCCESS' } };
    const after = plan(
      { ...w, devices: [{ ...recorded, desiredAction: undefined }], workflows: [ended], noted: new Set([noteKey({ run: wf.metadata.name, event: 'ended' })]) },
      cfg,
    );
    expect(kube(after.steps).filter((k) => k.startsWith('create Workflow'))).toEqual([]);
  });

  it('a started run whose power cycle was never created gets its Job', () => {
    const d = device();
    const wf = run(d, 'provision', 30_000, {});
    const w = { ...steady(d), workflows: [wf], hardware: [stamp(desiredHardware(d, NS, true))] };
    expect(kube(plan(w, cfg).steps)).toEqual([`create Job ${wf.metadata.name}`]);
    expect(kube(plan({ ...w, jobs: [stamp(desiredPowerCycle(d, wf.metadata.name, NS))] }, cfg).steps)).toEqual([]);
  });
});

describe('a cloud-init-nocloud node', () => {
  it('turns active when its run reports image-to-disk done (the seed written), not before', () => {
    const d = device({ status: 'planned', className: 'cloud' });
    const writing = run(d, 'provision', 60_000, {
      state: 'RUNNING',
      tasks: [{ actions: [action('wipe-disk', 'SUCCESS', 50_000), action('image-to-disk', 'RUNNING', 40_000)] }],
    });
    const recorded = { ...d, lastRun: writing.metadata.name };
    const w = { ...steady(recorded), workflows: [writing], hardware: [stamp(desiredHardware(d, NS, true))] };
    expect(invOps(plan(w, cfg).steps)).toEqual([]);
    const written = {
      ...writing,
      status: { state: 'RUNNING', tasks: [{ actions: [action('wipe-disk', 'SUCCESS', 50_000), action('image-to-disk', 'SUCCESS', 40_000)] }] },
    };
    expect(invOps(plan({ ...w, workflows: [written] }, cfg).steps)).toEqual(['setStatus active']);
    // Another payload's device turns active at its first boot's fetch, not here.
    const nixos = { ...recorded, className: 'nixos' };
    expect(invOps(plan({ ...steady(nixos), workflows: [written], hardware: w.hardware }, cfg).steps)).toEqual([]);
  });
});

describe('desired_action retire', () => {
  it('starts a wipe-only run, power-cycled, and the device turns decommissioning', () => {
    const p = plan(steady(device({ desiredAction: 'retire' })), cfg);
    const wf = created(p.steps, 'Workflow');
    expect(wf.metadata.name).toBe(`retire-n1-${NOW / 1000}`);
    expect(wf.spec).toMatchObject({ templateRef: 'provision', hardwareMap: { wipe: 'true', install: 'false', power_off: 'true' } });
    expect(invOps(p.steps)).toEqual([`recordRun retire-n1-${NOW / 1000}`, 'setStatus decommissioning']);
  });

  it('success counts only when the BMC reports the machine off', () => {
    const d = device({ status: 'decommissioning' });
    const wf = run(d, 'retire', 3_600_000, {
      state: 'SUCCESS',
      tasks: [{ actions: [action('wipe-disk', 'SUCCESS', 3_500_000), action('reboot', 'SUCCESS', 3_400_000)] }],
    });
    const w = { ...steady(d), workflows: [wf] };
    w.machines[0]!.status = { powerState: 'off' };
    const p = plan(w, cfg);
    expect(journals(p.steps)).toEqual([`success: n1 is retired: Workflow ${wf.metadata.name} wiped its disk, and its BMC reports it off`]);
    expect(invOps(p.steps)).toEqual(['setStatus offline']);
  });

  it('a reported success the BMC contradicts is a danger line; the device stays decommissioning', () => {
    const d = device({ status: 'decommissioning' });
    const wf = run(d, 'retire', 3_600_000, { state: 'SUCCESS', tasks: [{ actions: [action('reboot', 'SUCCESS', 3_400_000)] }] });
    const w = { ...steady(d), workflows: [wf] };
    w.machines[0]!.status = { powerState: 'on' };
    const p = plan(w, cfg);
    expect(journals(p.steps)).toEqual([
      `danger: n1: Workflow ${wf.metadata.name} reported success, but its BMC reports power on: the disk may not be wiped, so the node may still hold its data and its identity; the device stays decommissioning`,
    ]);
    expect(invOps(p.steps)).toEqual([]);
  });

  it('a power state that is not a string is no report: the danger line says unknown', () => {
    const d = device({ status: 'decommissioning' });
    const wf = run(d, 'retire', 3_600_000, { state: 'SUCCESS', tasks: [{ actions: [action('reboot', 'SUCCESS', 3_400_000)] }] });
    const w = { ...steady(d), workflows: [wf] };
    w.machines[0]!.status = { powerState: { toString: 'off' } };
    expect(journals(plan(w, cfg).steps)).toEqual([expect.stringContaining('but its BMC reports power unknown:')]);
  });

  it('the BMC gets time to catch up before the danger line', () => {
    const d = device({ status: 'decommissioning' });
    const wf = run(d, 'retire', 200_000, { state: 'SUCCESS', tasks: [{ actions: [action('reboot', 'SUCCESS', 100_000)] }] });
    expect(plan({ ...steady(d), workflows: [wf] }, cfg).steps).toEqual([]);
  });
});

describe('outcomes', () => {
  it.each([
    [
      'FAILED (new spelling)',
      {
        state: 'FAILED',
        currentState: { actionName: 'install' },
        tasks: [{ actions: [action('wipe-disk', 'SUCCESS', 900_000), action('install', 'FAILED', 800_000, 'action completed')] }],
      },
      'FAILED at install (action completed)',
    ],
    [
      'STATE_TIMEOUT (old spelling)',
      {
        state: 'STATE_TIMEOUT',
        tasks: [
          { actions: [{ name: 'wipe-disk', status: 'STATE_TIMEOUT', startedAt: new Date(NOW - 900_000).toISOString(), seconds: 600, message: 'timed out' }] },
        ],
      },
      'TIMEOUT at wipe-disk (timed out)',
    ],
  ])('a run that ended %s is journaled once, naming the action and its message', (_n, status, what) => {
    const d = device({ status: 'planned' });
    const wf = run(d, 'provision', 1_000_000, status);
    const w = { ...steady(d), workflows: [wf] };
    const p = plan(w, cfg);
    expect(journals(p.steps)).toEqual([
      `warning: n1: Workflow ${wf.metadata.name} ended ${what}; read journalctl -t hookos HOOKOS_HOST=10.0.1.11 on spore for the action's last lines. Fix the cause, then set desired_action to provision`,
    ]);
    expect(plan({ ...w, noted: new Set([noteKey({ run: wf.metadata.name, event: 'ended' })]) }, cfg).steps).toEqual([]);
  });

  it('a retirement that failed is a danger line', () => {
    const d = device({ status: 'decommissioning' });
    const wf = run(d, 'retire', 1_000_000, { state: 'FAILED', tasks: [{ actions: [action('wipe-disk', 'FAILED', 900_000, 'boom')] }] });
    expect(journals(plan({ ...steady(d), workflows: [wf] }, cfg).steps)[0]).toMatch(
      /^danger: n1: Workflow retire-n1-\d+ ended FAILED at wipe-disk \(boom\).*the device stays decommissioning$/,
    );
  });

  it('a run that passed its global timeout while install was current, on an active node: only noted', () => {
    const d = device({ status: 'active' });
    const wf = run(d, 'provision', 5_000_000, {
      state: 'TIMEOUT',
      tasks: [{ actions: [action('wipe-disk', 'SUCCESS', 4_900_000), action('install', 'RUNNING', 4_800_000)] }],
    });
    expect(journals(plan({ ...steady(d), workflows: [wf] }, cfg).steps)).toEqual([
      `info: n1: Workflow ${wf.metadata.name} passed its global timeout while install was current; the node is active, so it has its install`,
    ]);
  });

  it('a run that never reported its first action within its global timeout is deleted, with its Job', () => {
    const d = device();
    const wf = run(d, 'provision', 4_000_000, { state: 'PENDING', globalTimeout: 3000 });
    const job = stamp(desiredPowerCycle(d, wf.metadata.name, NS));
    const p = plan({ ...steady(d), workflows: [wf], jobs: [job], hardware: [stamp(desiredHardware(d, NS, true))] }, cfg);
    expect(kube(p.steps)).toEqual([`delete Workflow ${wf.metadata.name}`, `delete Job ${wf.metadata.name}`, 'patch Hardware n1']);
    expect(journals(p.steps)[0]).toMatch(
      /never reported its first action within its global timeout \(3000 s\); fleetd deleted it, and no later boot resumes it/,
    );
  });

  it("a Workflow whose Template Tinkerbell could not render has ended: journaled once with Tinkerbell's reason, not left to be deleted as abandoned", () => {
    const d = device();
    const reason = 'error rendering template: failed to parse template with ID w: err: template: workflow-template:1: function "nofunc" not defined';
    const wf = run(d, 'provision', 30_000, {
      templateRendering: 'failed',
      conditions: [{ type: 'TemplateRenderedSuccess', status: 'False', reason: 'Error', message: reason }],
    });
    const p = plan({ ...steady(d), workflows: [wf] }, cfg);
    expect(journals(p.steps)).toEqual([
      `warning: n1: Tinkerbell could not render the Template of Workflow ${wf.metadata.name} (${reason}), so no action ran. Fix the cause, then set desired_action to provision`,
    ]);
  });

  it("a run whose first action Tinkerbell's agent reported RUNNING (no start time yet) is not abandoned, however late it began", () => {
    const d = device();
    const wf = run(d, 'provision', 4_000_000, {
      state: 'RUNNING',
      globalTimeout: 3000,
      currentState: { actionName: 'wipe-disk', state: 'RUNNING' },
      tasks: [{ actions: [{ name: 'wipe-disk', state: 'RUNNING', message: 'running action' }] }],
    });
    const p = plan({ ...steady(d), workflows: [wf], hardware: [stamp(desiredHardware(d, NS, true))] }, cfg);
    expect(kube(p.steps)).toEqual([]);
    expect(journals(p.steps)).toEqual([]);
  });

  it('a node that attests again after its provision succeeded booted HookOS instead of its disk: journaled once per run, counted', () => {
    const attested = (agoMs: number) => ({
      at: new Date(NOW - agoMs).toISOString(),
      mac: MAC,
      bootId: 'b2',
      eks: {},
      secureBoot: true,
      switchPort: 'Port 5',
    });
    const d = device({ status: 'planned', attested: attested(60_000) });
    const done = run(d, 'provision', 600_000, {
      state: 'SUCCESS',
      tasks: [{ actions: [action('wipe-disk', 'SUCCESS', 500_000), action('install', 'SUCCESS', 400_000)] }],
    });
    const w = { ...steady(d), workflows: [done], noted: new Set([noteKey({ run: done.metadata.name, event: 'ended' })]) };
    const p = plan(w, cfg);
    expect(journals(p.steps)).toEqual([
      `warning: n1: the node booted HookOS and attested after Workflow ${done.metadata.name} succeeded, instead of booting its disk; its config stays unread. Fix its boot order so the disk comes before PXE, then set desired_action to provision`,
    ]);
    expect(p.steps.filter((s) => s.to === 'metric')).toEqual([{ to: 'metric', op: 'bootedHookOSAfterInstall', node: 'n1' }]);
    // Once per run: the note stops the next pass; an attestation from before the run ended is no such boot.
    expect(journals(plan({ ...w, noted: new Set([...w.noted, noteKey({ run: done.metadata.name, event: 'hookos-after' })]) }, cfg).steps)).toEqual([]);
    expect(journals(plan({ ...w, devices: [{ ...d, attested: attested(700_000) }] }, cfg).steps)).toEqual([]);
  });

  it('allowPXE is on exactly while a run is unfinished; a finished run turns it off', () => {
    const d = device();
    const running = run(d, 'provision', 60_000, { state: 'RUNNING', tasks: [{ actions: [action('wipe-disk', 'RUNNING', 30_000)] }] });
    expect(kube(plan({ ...steady(d), workflows: [running] }, cfg).steps)).toEqual(['patch Hardware n1']);
    const done = run(d, 'provision', 60_000, { state: 'SUCCESS' });
    const w = {
      ...steady(d),
      workflows: [done],
      hardware: [stamp(desiredHardware(d, NS, true))],
      noted: new Set([noteKey({ run: done.metadata.name, event: 'ended' })]),
    };
    const p = plan(w, cfg);
    expect(kube(p.steps)).toEqual(['patch Hardware n1']);
    expect(JSON.stringify(p.steps[0])).toContain('"allowPXE":false');
  });
});

describe('reading Workflows', () => {
  it.each([
    ['STATE_SUCCESS', 'success'],
    ['SUCCESS', 'success'],
    ['STATE_FAILED', 'failed'],
    ['TIMEOUT', 'timeout'],
    ['STATE_PENDING', 'pending'],
    ['PREPARING', 'pending'],
    ['POST', 'running'],
    ['', 'pending'],
    ['SOMETHING_NEW', 'running'],
  ])('%s reads as %s', (raw, want) => {
    expect(runState(raw)).toBe(want);
  });

  it('reads actions in both spellings', () => {
    const v = viewWorkflow({
      apiVersion: 'v',
      kind: 'Workflow',
      metadata: { name: 'w' },
      status: {
        tasks: [
          {
            actions: [
              { name: 'a', status: 'STATE_SUCCESS', startedAt: '2026-11-30T00:00:00Z', seconds: 5 },
              { name: 'b', state: 'RUNNING', executionStart: '2026-11-30T00:00:10Z' },
            ],
          },
        ],
      },
    });
    expect(v.actions.map((a) => [a.name, a.state, a.started, a.stopped])).toEqual([
      ['a', 'success', Date.parse('2026-11-30T00:00:00Z'), Date.parse('2026-11-30T00:00:05Z')],
      ['b', 'running', Date.parse('2026-11-30T00:00:10Z'), null],
    ]);
    expect(v.current).toBe('b');
  });

  it('reads a status whose lists hold null or a bare value (a CRD that lets them stand) as if they were not there', () => {
    const status = { conditions: [null, 'x'], tasks: [null, 3, { actions: [null, 'a', { name: 'b', state: 'RUNNING' }] }] };
    const v = viewWorkflow({ apiVersion: 'v', kind: 'Workflow', metadata: { name: 'w' }, status });
    expect(v.actions.map((a) => [a.name, a.state])).toEqual([['b', 'running']]);
    expect(v.renderError).toBeNull();
  });

  it('splits CIDR addresses', () => {
    expect(splitCidr('10.0.1.11/24')).toEqual({ ip: '10.0.1.11', netmask: '255.255.255.0' });
    expect(splitCidr('192.0.2.1/30')).toEqual({ ip: '192.0.2.1', netmask: '255.255.255.252' });
    expect(splitCidr('2001:db8::1/64')).toBeNull();
  });
});
