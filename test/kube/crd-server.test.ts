import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { NodeClass } from '../../verifier/inventory/embedded/nodes-file.js';
import { KubeClient, KubeError } from '../../verifier/kube/client.js';
import { desiredHardware, desiredMachine, desiredPowerCycle, desiredWorkflow, holds } from '../../verifier/reconcile/desired.js';
import { LeaderLease } from '../../verifier/reconcile/lease.js';
import type { Kind, KubeObject } from '../../verifier/reconcile/objects.js';
import { device, NIXOS, TALOS } from '../tinkerbell/fixtures.js';
import { CrdServer } from './crd-server.js';

/**
 * What fleet writes, against Kubernetes' own CRD server with the real Tinkerbell and Rufio CRDs and
 * strict field validation: every object is taken as written (nothing pruned), the Templates too,
 * and what the CRDs do not allow is refused by the server itself.
 */
let server: CrdServer;
beforeAll(async () => {
  server = await CrdServer.start();
}, 600_000);
afterAll(() => server?.stop());

const classes: NodeClass[] = [
  TALOS,
  NIXOS,
  { name: 'cloud', payload: 'cloud-init-nocloud', imageUrl: 'https://images.lab/debian.raw.zst', imageSha256: 'e'.repeat(64), controlPlane: false },
];

function client(ns: string): KubeClient {
  return KubeClient.fromFile(server.kubeconfigPath, ns);
}

async function roundTrip(kube: KubeClient, kind: Kind, object: KubeObject): Promise<void> {
  await kube.create(kind, object);
  const back = (await kube.list(kind)).find((o) => o.metadata.name === object.metadata.name);
  expect(back, `${kind} ${object.metadata.name}`).toBeDefined();
  // Everything fleet wrote is there as written: the server pruned nothing.
  expect(holds(back!.spec, object.spec), `${kind} ${object.metadata.name}: ${JSON.stringify(back!.spec)}`).toBe(true);
  expect(back!.metadata.labels).toEqual(object.metadata.labels);
}

describe('the real CRD server takes what fleet writes', () => {
  it("Hardware, Machine, every run's Workflow (each payload, a retirement) and the power-cycle Job, strictly validated", async () => {
    const ns = 'objects';
    const kube = client(ns);
    const d = device('node-1');
    await roundTrip(kube, 'Hardware', desiredHardware(d, ns, true));
    await roundTrip(kube, 'Machine', desiredMachine(d, ns)!);
    const urls = { configUrl: 'https://fleetd.lab:8443/v1/config', seedUrl: 'https://fleetd.lab:8443/v1/seed' };
    let unix = 1764480000;
    for (const cls of classes) await roundTrip(kube, 'Workflow', desiredWorkflow({ ...d, className: cls.name }, cls, 'provision', unix++, ns, urls));
    const retire = desiredWorkflow(d, classes[0], 'retire', unix++, ns, urls);
    await roundTrip(kube, 'Workflow', retire);
    await roundTrip(kube, 'Job', desiredPowerCycle(d, retire.metadata.name, ns));
    // fleet's merge patch of its own fields (allowPXE off) is taken too.
    const hw = (await kube.list('Hardware'))[0]!;
    await kube.patch('Hardware', 'node-1', { spec: desiredHardware(d, ns, false).spec }, hw.metadata.resourceVersion);
  });

  it('both Templates, as Flux applies them', async () => {
    for (const file of ['provision.yaml', 'provision-image.yaml']) {
      const t = parse(await readFile(new URL(`../../images/templates/${file}`, import.meta.url), 'utf8')) as KubeObject;
      t.metadata.namespace = 'templates';
      await client('templates').create('Template', t);
    }
    expect((await client('templates').list('Template')).map((t) => t.metadata.name).sort()).toEqual(['provision', 'provision-image']);
  });

  it("refuses, itself, a field the CRD does not have and a value of the wrong type: the write fails with the server's reason", async () => {
    const kube = client('refused');
    const typo = desiredHardware(device('node-2'), 'refused', false);
    (typo.spec!.interfaces as Array<Record<string, unknown>>)[0]!.netbot = { allowPXE: true };
    const unknown = await kube.create('Hardware', typo).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(KubeError);
    expect((unknown as KubeError).status).toBe(400);
    expect((unknown as KubeError).message).toMatch(/unknown field "spec\.interfaces\[0\]\.netbot"/);

    const wrong = desiredWorkflow(device('node-3'), classes[0], 'provision', 1764480000, 'refused', {});
    (wrong.spec!.hardwareMap as Record<string, unknown>).wipe = true;
    const typed = await kube.create('Workflow', wrong).catch((e: unknown) => e);
    expect(typed).toBeInstanceOf(KubeError);
    expect((typed as KubeError).status).toBe(422);
    expect((typed as KubeError).message).toMatch(/spec\.hardwareMap\.wipe: Invalid value: "boolean": spec\.hardwareMap\.wipe in body must be of type string/);
    expect(await kube.list('Workflow')).toEqual([]);
  });

  it('a stale write is a conflict (409), and only one of two fleetd holds the Lease', async () => {
    const kube = client('conflict');
    const d = device('node-4');
    await kube.create('Hardware', desiredHardware(d, 'conflict', false));
    const rv = (await kube.list('Hardware'))[0]!.metadata.resourceVersion;
    await kube.patch('Hardware', 'node-4', { spec: desiredHardware(d, 'conflict', true).spec }, rv);
    const stale = await kube.patch('Hardware', 'node-4', { spec: desiredHardware(d, 'conflict', false).spec }, rv).catch((e: unknown) => e);
    expect(stale).toMatchObject({ code: 'kube-conflict', status: 409 });
    const [a, b] = [new LeaderLease(kube, 'fleetd-a'), new LeaderLease(kube, 'fleetd-b')];
    expect(await Promise.all([a.hold(), b.hold()])).toEqual(expect.arrayContaining([true, false]));
  });

  it('a released Lease is free at once: the next fleetd holds it without waiting it out', async () => {
    const kube = client('release');
    const [a, b] = [new LeaderLease(kube, 'fleetd-a'), new LeaderLease(kube, 'fleetd-b')];
    expect(await a.hold()).toBe(true);
    expect(await b.hold()).toBe(false);
    await b.release(); // not its lease: nothing changes
    expect(await b.hold()).toBe(false);
    await a.release();
    expect(await b.hold()).toBe(true);
    expect(await a.hold()).toBe(false);
  });
});
