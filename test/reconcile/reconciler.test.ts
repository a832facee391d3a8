import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KubeError } from '../../verifier/kube/client.js';
import { LeaderLease } from '../../verifier/reconcile/lease.js';
import { CrdServer } from '../kube/crd-server.js';
import { nodeEntry } from '../node-entry.js';
import { harness as harnessOn, type Harness } from './harness.js';

/**
 * The reconciler through @kubernetes/client-node 1.4 against Kubernetes' own CRD server with the
 * real Tinkerbell and Rufio CRDs (through a proxy that records its requests and injects the faults
 * a real server does not make on demand), with the embedded inventory in SQLite: each rule, each
 * journal line, and what it writes.
 */
let server: CrdServer;
beforeAll(async () => {
  server = await CrdServer.start();
}, 600_000);
afterAll(() => server?.stop());
const harness = (nodes?: Parameters<typeof harnessOn>[1]) => harnessOn(server, nodes);

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const TB = 'tinkerbell.org';
const BMC = 'bmc.tinkerbell.org';
type Obj = { metadata: { name: string; labels?: Record<string, string> }; spec?: Record<string, unknown>; status?: Record<string, unknown> };
const objs = async (x: Harness, group: string, plural: string) => (await x.objects(group, plural)) as Obj[];
const allowPXE = async (x: Harness) => ((await objs(x, TB, 'hardware'))[0]!.spec!.interfaces as Array<{ netboot: { allowPXE: boolean } }>)[0]!.netboot.allowPXE;

/**
 * Plays Tinkerbell writing a Workflow's status (the current shape), with the ids and agent the
 * CRD requires of each task and action.
 */
async function tinkerbell(x: Harness, name: string, status: { tasks?: Array<{ actions: Array<Record<string, unknown>> }> } & Record<string, unknown>) {
  const agent = '52:54:00:12:34:56';
  const tasks = (status.tasks ?? []).map((t, i) => ({
    id: `${name}-task-${i}`,
    name: 'provision',
    agentID: agent,
    ...t,
    actions: t.actions.map((a) => ({ id: `${name}-${String(a.name)}`, ...a })),
  }));
  await x.status(TB, 'workflows', name, { ...status, ...(status.tasks ? { tasks } : {}) });
}

describe('steady state', () => {
  it("the first pass creates each device's Hardware and Machine; a second pass over an unchanged world writes nothing", async () => {
    h = await harness();
    await h.attested('node-1', 3_600_000);
    const first = await h.reconciler.pass();
    expect(first).toMatchObject({ writes: 2 });
    expect(h.writes()).toEqual(['create hardware', 'create machines']);
    const before = h.api.requests.length;
    const second = await h.reconciler.pass();
    expect(second).toEqual({ writes: 0, planned: 0, warnings: [] });
    expect(h.writes(before)).toEqual([]);
    expect((await objs(h, BMC, 'machines'))[0]!.spec).toMatchObject({ connection: { host: '10.0.1.11', port: 16992, authSecretRef: { name: 'bmc-amt' } } });
    expect(await allowPXE(h)).toBe(false);
  });

  it('a device the inventory stops exporting loses its owned objects; objects fleetd does not own stay', async () => {
    h = await harness({ 'node-1': nodeEntry(), 'node-2': nodeEntry({ serial: 'SN2', address: '10.0.1.12/24', switch_port: 'Port 6', disk_serial: 'S4EV2' }) });
    await h.attested('node-1', 3_600_000);
    await h.attested('node-2', 3_600_000, '52:54:00:00:00:02');
    await h.reconciler.pass();
    await h.kube.create('Hardware', { apiVersion: `${TB}/v1alpha1`, kind: 'Hardware', metadata: { name: 'hand-made', namespace: h.ns }, spec: {} });
    await h.writeNodes({ 'node-1': nodeEntry() });
    const before = h.api.requests.length;
    await h.reconciler.pass();
    expect(h.writes(before).sort()).toEqual(['delete hardware node-2', 'delete machines node-2']);
    expect((await objs(h, TB, 'hardware')).map((o) => o.metadata.name).sort()).toEqual(['hand-made', 'node-1']);
  });
});

describe('desired_action provision', () => {
  it('starts the run: Workflow, allowPXE on, a Rufio power cycle; clears desired_action and journals it; then its success turns allowPXE off', async () => {
    h = await harness();
    await h.attested('node-1', 3_600_000);
    await h.reconciler.pass();
    await h.inventory.setDesiredAction(await h.device(), 'provision');
    const before = h.api.requests.length;
    await h.reconciler.pass();
    const name = `provision-node-1-${h.now.t / 1000}`;
    expect(h.writes(before)).toEqual(['patch hardware node-1', 'create workflows', 'create jobs']);
    expect(await allowPXE(h)).toBe(true);
    expect((await objs(h, BMC, 'jobs'))[0]).toMatchObject({
      metadata: { name },
      spec: {
        machineRef: { name: 'node-1' },
        tasks: [{ powerAction: 'off' }, { oneTimeBootDeviceAction: { device: ['pxe'], efiBoot: true } }, { powerAction: 'on' }],
      },
    });
    const d = await h.device();
    expect(d.desiredAction).toBeUndefined();
    expect(d.lastRun).toBe(name);
    expect(await h.journal()).toEqual([`info: node-1: started Workflow ${name}; Rufio power-cycles it into a one-time PXE boot`]);

    h.now.t += 600_000;
    await tinkerbell(h, name, {
      state: 'SUCCESS',
      tasks: [{ actions: [{ name: 'wipe-disk', state: 'SUCCESS', executionStart: new Date(h.now.t - 500_000).toISOString() }] }],
    });
    await h.reconciler.pass();
    expect(await allowPXE(h)).toBe(false);
    expect((await h.journal()).at(-1)).toBe(`success: node-1: Workflow ${name} succeeded`);
    const again = h.api.requests.length;
    await h.reconciler.pass();
    expect(h.writes(again)).toEqual([]);
    expect(await h.journal()).toHaveLength(2);
  });

  it("a node that attests from HookOS after its run succeeded: journaled once, and the alert's metric counts it", async () => {
    h = await harness();
    await h.attested('node-1', 3_600_000);
    await h.inventory.setDesiredAction(await h.device(), 'provision');
    await h.reconciler.pass();
    const name = `provision-node-1-${h.now.t / 1000}`;
    h.now.t += 600_000;
    await tinkerbell(h, name, {
      state: 'SUCCESS',
      tasks: [
        {
          actions: [
            {
              name: 'install',
              state: 'SUCCESS',
              executionStart: new Date(h.now.t - 300_000).toISOString(),
              executionStop: new Date(h.now.t - 200_000).toISOString(),
            },
          ],
        },
      ],
    });
    await h.reconciler.pass();
    h.now.t += 120_000;
    await h.attested('node-1', 0);
    await h.reconciler.pass();
    await h.reconciler.pass();
    expect((await h.journal()).filter((l) => l.includes('booted HookOS'))).toEqual([
      `warning: node-1: the node booted HookOS and attested after Workflow ${name} succeeded, instead of booting its disk; its config stays unread. Fix its boot order so the disk comes before PXE, then set desired_action to provision`,
    ]);
    expect(await h.metrics.registry.getSingleMetricAsString('fleet_node_booted_hookos_after_install_total')).toContain(
      'fleet_node_booted_hookos_after_install_total{node="node-1"} 1',
    );
  });

  it("a machine that just attested from HookOS holding an intake's code starts as it is, and the run takes the code", async () => {
    h = await harness();
    await h.attested('node-1', 60_000);
    h.store.recordInstallCode({
      device: 'node-1',
      hostname: 'node-1',
      sha256: 'ab'.repeat(32),
      bootId: 'b',
      at: new Date(h.now.t - 60_000).toISOString(),
      run: null,
    });
    await h.inventory.setDesiredAction(await h.device(), 'provision');
    await h.reconciler.pass();
    const name = `provision-node-1-${h.now.t / 1000}`;
    expect(await objs(h, BMC, 'jobs')).toEqual([]);
    expect(await h.journal()).toEqual([`info: node-1: started Workflow ${name}, with the note that the machine attested from HookOS`]);
    expect(h.store.installCode('node-1')?.run).toBe(name);
  });

  it('a machine that just attested from HookOS without a code is power-cycled, so that its next boot gets one', async () => {
    h = await harness();
    await h.attested('node-1', 60_000);
    await h.inventory.setDesiredAction(await h.device(), 'provision');
    await h.reconciler.pass();
    expect((await objs(h, BMC, 'jobs')).map((j) => j.metadata.name)).toEqual([`provision-node-1-${h.now.t / 1000}`]);
  });

  it('a device that lacks install_disk_serial waits; the journal says so once', async () => {
    h = await harness({ 'node-1': nodeEntry({ disk_serial: null }) });
    await h.attested('node-1', 3_600_000);
    await h.inventory.setDesiredAction(await h.device(), 'provision');
    await h.reconciler.pass();
    await h.reconciler.pass();
    expect(await h.journal()).toEqual(['warning: node-1 lacks install_disk_serial; the run waits for install_disk_serial']);
    expect(await objs(h, TB, 'workflows')).toEqual([]);
    expect((await h.device()).desiredAction).toBe('provision');
  });

  it('a run that ended FAILED names its action and message once; TIMEOUT during install on an active node is only noted', async () => {
    h = await harness();
    await h.attested('node-1', 3_600_000);
    await h.inventory.setDesiredAction(await h.device(), 'provision');
    await h.reconciler.pass();
    const name = (await h.device()).lastRun!;
    await tinkerbell(h, name, {
      state: 'FAILED',
      currentState: { actionName: 'install' },
      tasks: [
        {
          actions: [
            { name: 'wipe-disk', state: 'SUCCESS' },
            { name: 'install', state: 'FAILED', message: 'action completed' },
          ],
        },
      ],
    });
    await h.reconciler.pass();
    await h.reconciler.pass();
    expect((await h.journal()).slice(1)).toEqual([
      `warning: node-1: Workflow ${name} ended FAILED at install (action completed); read journalctl -t hookos HOOKOS_HOST=10.0.1.11 on spore for the action's last lines. Fix the cause, then set desired_action to provision`,
    ]);

    h.now.t += 60_000;
    await h.inventory.setDesiredAction(await h.device(), 'provision');
    await h.reconciler.pass();
    const second = (await h.device()).lastRun!;
    // The installed node fetched its config (so it turned active), then the run's last reports were lost.
    await h.inventory.setStatus(await h.device(), 'active');
    await tinkerbell(h, second, {
      state: 'TIMEOUT',
      tasks: [
        {
          actions: [
            { name: 'wipe-disk', state: 'SUCCESS' },
            { name: 'install', state: 'RUNNING', executionStart: new Date(h.now.t).toISOString() },
          ],
        },
      ],
    });
    await h.reconciler.pass();
    expect((await h.journal()).at(-1)).toBe(
      `info: node-1: Workflow ${second} passed its global timeout while install was current; the node is active, so it has its install`,
    );
  });

  it('a run that never reported its first action within its global timeout is deleted, with its Job, and journaled', async () => {
    h = await harness();
    await h.attested('node-1', 3_600_000);
    await h.inventory.setDesiredAction(await h.device(), 'provision');
    await h.reconciler.pass();
    const name = (await h.device()).lastRun!;
    h.now.t += 3_700_000;
    const before = h.api.requests.length;
    await h.reconciler.pass();
    expect(h.writes(before)).toEqual([`delete workflows ${name}`, `delete jobs ${name}`, 'patch hardware node-1']);
    expect((await h.journal()).at(-1)).toMatch(
      new RegExp(
        `^warning: node-1: Workflow ${name} never reported its first action within its global timeout \\(3600 s\\); fleetd deleted it, and no later boot resumes it`,
      ),
    );
    expect(await allowPXE(h)).toBe(false);
  });
});

describe('desired_action retire', () => {
  async function retired(power: string) {
    h = await harness();
    await h.attested('node-1', 3_600_000);
    await h.reconciler.pass();
    await h.inventory.setDesiredAction(await h.device(), 'retire');
    await h.reconciler.pass();
    const name = (await h.device()).lastRun!;
    expect(name).toMatch(/^retire-node-1-/);
    expect((await h.device()).status).toBe('decommissioning');
    h.now.t += 1_200_000;
    await tinkerbell(h, name, {
      state: 'SUCCESS',
      tasks: [{ actions: [{ name: 'wipe-disk', state: 'SUCCESS', executionStop: new Date(h.now.t - 900_000).toISOString() }] }],
    });
    await h.status(BMC, 'machines', 'node-1', { powerState: power });
    await h.reconciler.pass();
    return { name, x: h };
  }

  it('a wipe the BMC corroborates (power off) retires the device', async () => {
    const { name, x } = await retired('off');
    expect((await x.journal()).at(-1)).toBe(`success: node-1 is retired: Workflow ${name} wiped its disk, and its BMC reports it off`);
    expect((await x.device()).status).toBe('offline');
  });

  it('a success the BMC contradicts is a danger line, and the device stays decommissioning', async () => {
    const { name, x } = await retired('on');
    expect((await x.journal()).at(-1)).toMatch(
      new RegExp(`^danger: node-1: Workflow ${name} reported success, but its BMC reports power on: the disk may not be wiped`),
    );
    expect((await x.device()).status).toBe('decommissioning');
  });
});

describe('controller hygiene', () => {
  it('a conflict (someone else changed the object) re-reads and re-plans, and the pass completes', async () => {
    h = await harness();
    await h.attested('node-1', 3_600_000);
    await h.reconciler.pass();
    await h.inventory.setDesiredAction(await h.device(), 'provision');
    h.api.conflictNext(1, { resource: 'hardware' });
    const r = await h.reconciler.pass();
    expect(r.error).toBeUndefined();
    expect(await objs(h, TB, 'workflows')).toHaveLength(1);
    expect(await objs(h, BMC, 'jobs')).toHaveLength(1);
    expect(await allowPXE(h)).toBe(true);
    expect(await h.journal()).toHaveLength(1);
  });

  it('an API server that does not answer stops the pass before any write, and the inventory is untouched', async () => {
    h = await harness();
    await h.attested('node-1', 3_600_000);
    await h.inventory.setDesiredAction(await h.device(), 'provision');
    h.api.failNext(1, { status: 503, verb: 'list', resource: 'workflows' });
    const r = await h.reconciler.pass();
    expect(r.error).toMatch(/^read: list workflows/);
    expect(h.writes()).toEqual([]);
    expect((await h.device()).desiredAction).toBe('provision');
    expect(await h.journal()).toEqual([]);
    expect((await h.reconciler.pass()).error).toBeUndefined();
  });

  it('an error mid-pass leaves a state the next pass finishes without duplicating the run', async () => {
    h = await harness();
    await h.attested('node-1', 3_600_000);
    await h.reconciler.pass();
    await h.inventory.setDesiredAction(await h.device(), 'provision');
    h.api.failNext(1, { status: 500, verb: 'create', resource: 'jobs' });
    expect((await h.reconciler.pass()).error).toMatch(/create Job/);
    expect(await objs(h, TB, 'workflows')).toHaveLength(1);
    expect((await h.device()).desiredAction).toBe('provision');
    await h.reconciler.pass();
    expect(await objs(h, TB, 'workflows')).toHaveLength(1);
    expect(await objs(h, BMC, 'jobs')).toHaveLength(1);
    expect((await h.device()).desiredAction).toBeUndefined();
  });

  it('leader election: one holder at a time; another takes over only after the lease expired', async () => {
    h = await harness();
    const clock = { t: Date.now() };
    const a = new LeaderLease(h.kube, 'fleetd-a', 'fleetd', 30, () => clock.t);
    const b = new LeaderLease(h.kube, 'fleetd-b', 'fleetd', 30, () => clock.t);
    expect(await a.hold()).toBe(true);
    expect(await b.hold()).toBe(false);
    clock.t += 10_000;
    expect(await a.hold()).toBe(true);
    clock.t += 31_000;
    expect(await b.hold()).toBe(true);
    expect(await a.hold()).toBe(false);
    const lease = await h.kube.readLease('fleetd');
    expect(lease?.spec).toMatchObject({ holderIdentity: 'fleetd-b', leaseTransitions: 1 });
  });

  it('a lease write another instance raced is lost, not an error', async () => {
    h = await harness();
    const a = new LeaderLease(h.kube, 'fleetd-a');
    expect(await a.hold()).toBe(true);
    h.api.conflictNext(1, { resource: 'leases' });
    expect(await a.hold()).toBe(false);
    expect(await a.hold()).toBe(true);
  });

  it('a refused client certificate is a typed error', async () => {
    h = await harness();
    h.api.failNext(1, { status: 403, verb: 'list', resource: 'hardware' });
    await expect(h.kube.list('Hardware')).rejects.toBeInstanceOf(KubeError);
  });
});
