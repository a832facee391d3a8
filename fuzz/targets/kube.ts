import type { Device } from '../../verifier/inventory/device.js';
import { desiredHardware, desiredMachine, desiredPowerCycle, desiredWorkflow } from '../../verifier/reconcile/desired.js';
import type { KubeObject } from '../../verifier/reconcile/objects.js';
import { openRun } from '../../verifier/reconcile/open-run.js';
import { plan, type World } from '../../verifier/reconcile/plan.js';
import { viewWorkflow } from '../../verifier/reconcile/workflow-view.js';
import { classMap, NIXOS, reconcileConfig, TALOS } from '../../test/tinkerbell/fixtures.js';
import { actionServed, agentRan, controllerPost, controllerRunning, initialStatus, rendered, renderFailed } from '../../test/tinkerbell/status.js';
import type { Target } from '../engine/target.js';
import { utf8 } from './testdata.js';

const NS = 'tink';
const CFG = reconcileConfig(NS);
const CLASSES = classMap(TALOS, NIXOS);
const T0 = Date.parse('2026-12-01T18:00:00Z');
const UNIX = T0 / 1000;
const base = {
  binding: {},
  serial: 'SN1',
  status: 'active' as const,
  controlPlane: false,
  address: '10.0.1.11/24',
  bmcType: 'amt',
  installDisk: '/dev/nvme0n1',
  installDiskSerial: 'S4EV1',
  switchPort: 'Port 5',
};
const DEVICES: Device[] = [
  { ...base, id: 'node-1', hostname: 'node-1', className: 'worker', mac: '52:54:00:aa:bb:01', desiredAction: 'provision', lastRun: `provision-node-1-${UNIX}` },
  {
    ...base,
    id: 'node-2',
    hostname: 'node-2',
    serial: 'SN2',
    className: 'nixos',
    mac: '52:54:00:aa:bb:02',
    address: '10.0.1.12/24',
    lastRun: `retire-node-2-${UNIX}`,
    status: 'decommissioning',
  },
  { ...base, id: 'node-3', hostname: 'node-3', serial: 'SN3', className: 'worker', status: 'planned', bmcType: 'ipmi' },
];

/** What the API server would hold: fleet's own objects, with statuses as Tinkerbell and Rufio write them, step by step. */
function seeds(): Uint8Array[] {
  const [n1, n2] = DEVICES as [Device, Device];
  const stamp = (o: KubeObject, status?: Record<string, unknown>): KubeObject => ({
    ...o,
    metadata: { ...o.metadata, creationTimestamp: new Date(T0).toISOString(), resourceVersion: '7', uid: '0b1e' },
    ...(status ? { status } : {}),
  });
  const tasks = [
    {
      id: 't1',
      name: 'provision',
      agentID: n1.mac!,
      actions: ['wipe-disk', 'install', 'next-boot', 'reboot'].map((name, i) => ({
        id: `a${i}`,
        name,
        image: `fleet/${name}`,
        timeout: 600,
        state: 'PENDING' as const,
      })),
    },
  ];
  const ok = { ok: true as const, rendered: '', tasks, globalTimeout: 3600, agentID: n1.mac! };
  const pending = rendered(ok, new Date(T0 + 1000));
  const served = actionServed(pending, n1.mac!);
  const ran = agentRan(served, 'SUCCESS', new Date(T0 + 2000), new Date(T0 + 9000));
  const failed = agentRan(actionServed(ran.done, n1.mac!), 'FAILED', new Date(T0 + 10_000), new Date(T0 + 11_000)).done;
  const statuses = [
    initialStatus(),
    pending,
    served,
    ran.running,
    controllerRunning(ran.done, new Date(T0 + 9500)),
    failed,
    controllerPost(failed),
    renderFailed(initialStatus(), { ok: false, condition: 'template: provision:12: map has no entry for key "install_disk"' } as never, new Date(T0)),
  ];
  const made = desiredWorkflow(n1, CLASSES.get('worker'), 'provision', UNIX, NS, CFG);
  // As plan() starts a run that Rufio power-cycles into.
  const wf1 = { ...made, metadata: { ...made.metadata, labels: { ...made.metadata.labels, 'fleet.lolwtf.ca/boot': 'bmc' } } };
  const wf2 = desiredWorkflow(n2, CLASSES.get('nixos'), 'retire', UNIX, NS, CFG);
  // The old tink's status field names, which workflow-view.ts reads as well.
  const oldTink = {
    state: 'STATE_RUNNING',
    currentAction: 'install',
    globalTimeout: 3600,
    tasks: [
      {
        name: 'retire',
        actions: [
          { name: 'wipe-disk', status: 'STATE_SUCCESS', startedAt: new Date(T0).toISOString(), seconds: 30 },
          { name: 'power-off', status: 'STATE_RUNNING' },
        ],
      },
    ],
  };
  const world = (wfStatus: Record<string, unknown>, jobStatus?: Record<string, unknown>) => ({
    workflows: [stamp(wf1, wfStatus), stamp(wf2, oldTink)],
    hardware: [stamp(desiredHardware(n1, NS, true)), stamp(desiredHardware(n2, NS, false))],
    machines: [
      stamp(desiredMachine(n1, NS)!, { powerState: 'on', conditions: [{ type: 'Contactable', status: 'True' }] }),
      stamp(desiredMachine(n2, NS)!, { powerState: 'off' }),
    ],
    jobs: [stamp(desiredPowerCycle(n1, wf1.metadata.name, NS), jobStatus ?? { conditions: [{ type: 'Running', status: 'True' }] })],
  });
  const failedJob = {
    conditions: [{ type: 'Failed', status: 'True', message: 'error getting power state: dial tcp 10.0.1.11:16993: i/o timeout' }],
    startTime: new Date(T0).toISOString(),
  };
  return [...statuses.map((s) => world(s as unknown as Record<string, unknown>)), world(pending as unknown as Record<string, unknown>, failedJob)].map((w) =>
    utf8(JSON.stringify(w)),
  );
}

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Only what an API server can answer: an object has metadata with a string name, and labels are a
 * string map (it validates both for every object). Everything else, spec and status included, is
 * as the input says: a CRD's schema can be older or looser than the one fleet was written against.
 */
function served(list: unknown): KubeObject[] {
  if (!Array.isArray(list)) return [];
  return list.filter((o): o is KubeObject => {
    if (!isMap(o) || !isMap(o.metadata) || typeof o.metadata.name !== 'string') return false;
    const labels = o.metadata.labels;
    if (labels !== undefined && !(isMap(labels) && Object.values(labels).every((v) => typeof v === 'string'))) delete o.metadata.labels;
    return true;
  });
}

/** Tinkerbell's and Rufio's objects as the API server lists them, through the reconciler's pure pass and the run views. */
const target: Target = {
  name: 'kube',
  kind: 'json',
  seedSources: ["fleet's own objects (verifier/reconcile/desired.ts) with the statuses Tinkerbell writes (test/tinkerbell/status.ts) and Rufio's"],
  seeds,
  maxLen: 128 * 1024,
  sources: ['verifier/reconcile/'],
  oracle:
    'never throws for objects an API server can serve (a string metadata.name, string labels): plan(), viewWorkflow() and openRun() answer for any spec and status',
  run(input) {
    let w: Record<string, unknown>;
    try {
      w = JSON.parse(Buffer.from(input).toString('utf8')) as Record<string, unknown>;
    } catch {
      return;
    }
    if (!isMap(w)) return;
    const world: World = {
      now: T0 + 5 * 3600_000,
      devices: DEVICES,
      classes: CLASSES,
      hardware: served(w.hardware),
      machines: served(w.machines),
      workflows: served(w.workflows),
      jobs: served(w.jobs),
      templates: new Set(['provision', 'provision-image', 'retire']),
      noted: new Set(),
      codes: new Map(),
      classInputs: new Map([
        ['worker', null],
        ['nixos', null],
      ]),
    };
    for (const wf of world.workflows) {
      viewWorkflow(wf);
      for (const d of DEVICES) openRun(d, wf);
    }
    plan(world, CFG);
  },
};

export default target;
