/**
 * The lab's whole loop around one e2e machine: Kubernetes' CRD API server with Tinkerbell's and
 * Rufio's CRDs and the two Templates (their actions' image in the run's registry), fleetd
 * (`fleet serve` with the reconciler and the embedded inventory), Tinkerbell's controller and
 * server (tink-server.ts), Rufio (rufio.ts) powering the machine over QMP, SNTP, the switch's
 * LLDP frame and an image server; the machine netboots HookOS (guest/hookos.sh), whose tink-agent
 * runs the Workflow fleetd created, or boots its disk as its firmware says. With `syslog`, HookOS's
 * Docker engine logs its containers to fleetd's receiver, into a private journald (hookos-syslog.ts).
 */
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { CrdServer } from '../../kube/crd-server.js';
import { startHost, type Host } from '../host.js';
import type { Machine } from '../machine.js';
import type { E2eRun } from '../manifest.js';
import { startHookosSyslog, type HookosSyslog } from './hookos-syslog.js';
import { PoweredMachine } from './powered-machine.js';
import { Rufio } from './rufio.js';
import { TinkServer } from './tink-server.js';

const NS = 'tinkerbell';
const LAB_MACHINE_MIB = 3072;
/** The image the Templates name for every action; the lab mirrors it in its own registry. */
const TOOLS_IMAGE = 'ghcr.io/lolwtf/tink-reprovision-tools:0.1.0';

type Obj = { metadata: { name: string; labels?: Record<string, string> }; spec?: Record<string, unknown>; status?: Record<string, unknown> };

export interface LabOptions {
  nodes: Record<string, Record<string, unknown>>;
  classes?: Record<string, unknown>;
  files?: Record<string, Buffer>;
  /** The node whose BMC answers (its address is the Machine's connection host); none: no BMC answers. */
  bmcOf?: string;
  /**
   * HookOS's syslog to fleetd's receiver, from the address declared for the node with the
   * machine's serial, into a private journald (`Lab.syslog`). Off by default: a journald and a
   * relay more, for the scenarios that read the journal.
   */
  syslog?: boolean;
}

export class Lab {
  private constructor(
    readonly host: Host,
    readonly kube: CrdServer,
    readonly tink: TinkServer,
    readonly rufio: Rufio,
    readonly machine: PoweredMachine,
    readonly syslog: HookosSyslog | null,
  ) {}

  static async start(run: E2eRun, m: Machine, opts: LabOptions): Promise<Lab> {
    // A lab machine's RAM: HookOS, its Docker engine with the tools and installer images in
    // memory, and image-to-disk's copy of the image.
    m.memoryMiB = LAB_MACHINE_MIB;
    const kube = await CrdServer.start();
    let syslog: HookosSyslog | null = null;
    try {
      if (opts.syslog) syslog = await startHookosSyslog(machineAddress(opts.nodes, m.serial));
      for (const file of ['provision.yaml', 'provision-image.yaml']) {
        const text = (await readFile(new URL(`../../../images/templates/${file}`, import.meta.url), 'utf8')).replaceAll(TOOLS_IMAGE, run.registry.tools);
        await kube.create(parse(text) as never, 'templates');
      }
      const tink = await TinkServer.start(kube, NS);
      const host = await startHost(run, m.dir, {
        nodes: opts.nodes,
        ...(opts.classes ? { classes: opts.classes } : {}),
        ...(opts.files ? { files: opts.files } : {}),
        lldp: true,
        serveArgs: [
          '--kubeconfig',
          kube.kubeconfigPath,
          '--namespace',
          NS,
          '--reconcile-interval',
          '1',
          '--base-url',
          'https://10.0.2.100',
          ...(syslog?.serveArgs ?? []),
        ],
      });
      await syslog?.connect(host.verifier);
      const services = () => ({ ...host.services, tinkPort: tink.port });
      const params = { LLDP_WINDOW: '10', ...(syslog ? { SYSLOG_ADDRESS: syslog.guestAddress } : {}) };
      const machine = new PoweredMachine(run, m, services, { script: 'hookos', params });
      const bmcs = new Map<string, PoweredMachine>();
      const address = opts.bmcOf ? addressOf(opts.nodes[opts.bmcOf]) : '';
      if (address) bmcs.set(address, machine);
      return new Lab(host, kube, tink, Rufio.start(kube, NS, bmcs), machine, syslog);
    } catch (err) {
      await syslog?.close();
      await kube.stop();
      throw err;
    }
  }

  async objects(group: 'tinkerbell.org' | 'bmc.tinkerbell.org', plural: string): Promise<Obj[]> {
    return (await this.kube.objects(group, 'v1alpha1', plural, NS)) as unknown as Obj[];
  }

  async journal(node: string): Promise<string[]> {
    return (await this.host.verifier.show(node)).journal.map((j) => j.message);
  }

  /** Waits for `check` to answer something truthy, or fails with the journal and fleetd's last lines. */
  async until<T>(what: string, node: string, check: () => T | Promise<T>, timeoutMs: number): Promise<NonNullable<T>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = await check();
      if (v) return v as NonNullable<T>;
      if (Date.now() > deadline) {
        const journal = await this.journal(node).catch((err: unknown) => [String(err)]);
        throw new Error(
          `waited ${timeoutMs} ms for ${what}; ${node}'s journal:\n${journal.join('\n')}\nfleetd said:\n${this.host.verifier.lines.slice(-20).join('\n')}`,
        );
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  /** fleetd's Workflow of a `kind` run for `node` (`<kind>-<node>-<unix seconds>`) not named in `earlier`, once it exists. */
  run(node: string, kind: 'provision' | 'retire', timeoutMs: number, earlier: ReadonlySet<string> = new Set()): Promise<Obj> {
    return this.until(
      `fleetd's ${kind} Workflow`,
      node,
      async () =>
        (await this.objects('tinkerbell.org', 'workflows')).find((w) => w.metadata.name.startsWith(`${kind}-${node}-`) && !earlier.has(w.metadata.name)),
      timeoutMs,
    );
  }

  /** The runbook's action: desired_action provision for `node`; answers the Workflow of the new run fleetd starts. */
  async provisionAgain(node: string, timeoutMs: number): Promise<Obj> {
    const earlier = new Set((await this.objects('tinkerbell.org', 'workflows')).map((w) => w.metadata.name));
    await this.host.verifier.setDesiredAction(node, 'provision');
    return this.run(node, 'provision', timeoutMs, earlier);
  }

  /** The Workflow `name` once Tinkerbell has ended it: SUCCESS, FAILED or TIMEOUT. */
  ended(node: string, name: string, timeoutMs: number): Promise<Obj> {
    return this.until(
      `the end of Workflow ${name}`,
      node,
      async () => {
        const w = (await this.objects('tinkerbell.org', 'workflows')).find((x) => x.metadata.name === name);
        return ['SUCCESS', 'FAILED', 'TIMEOUT'].includes(String(w?.status?.state)) ? w : null;
      },
      timeoutMs,
    );
  }

  async close(): Promise<void> {
    await this.machine.powerOff();
    await this.rufio.close();
    await this.tink.close();
    await this.host.close();
    await this.syslog?.close();
    await this.kube.stop();
  }
}

/** A node's declared address without its prefix length ('' when it declares none). */
const addressOf = (node: Record<string, unknown> | undefined): string => String(node?.address ?? '').split('/')[0]!;

/** The address declared for the node with the machine's serial: what its DHCP would give it. */
function machineAddress(nodes: LabOptions['nodes'], serial: string): string {
  const address = addressOf(Object.values(nodes).find((n) => n.serial === serial));
  if (!address) throw new Error(`no node with serial ${serial} declares an address`);
  return address;
}
