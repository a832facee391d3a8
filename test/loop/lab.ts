/**
 * The lab's loop for tests, joined through the doors its users use: `fleet serve` (with the
 * reconciler) against a kube API holding the Templates, an inventory (the embedded nodes file, or
 * NetBox), the operator's writes (`fleet inventory action`, or NetBox's custom field), and plays of
 * what no real part can run here: Rufio completing a power-cycle Job, and Tinkerbell's worker
 * taking a Workflow's actions in a booted machine and reporting their status.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import type { ActionName } from '../../images/tink-reprovision-tools/actions.js';
import type { Device, DesiredAction, DeviceStatus } from '../../verifier/inventory/device.js';
import { EmbeddedInventory } from '../../verifier/inventory/embedded/embedded.js';
import { readNodesFile } from '../../verifier/inventory/embedded/nodes-file.js';
import type { Inventory } from '../../verifier/inventory/inventory.js';
import { NetBoxInventory } from '../../verifier/inventory/netbox/netbox-inventory.js';
import { NetBoxClient } from '../../verifier/netbox/client.js';
import { openDatabase, type Db } from '../../verifier/state/database.js';
import type { DockerLab } from '../docker/lab.js';
import { freePort } from '../daemon.js';
import { type CliRun, fleetCli } from '../fleet-cli.js';
import { startFleetServe, type FleetServe } from '../fleet-serve.js';
import { TERRAFORM } from '../inventory/netbox-fixture.js';
import { classInputs } from '../install/talos-fixture.js';
import type { CrdServer } from '../kube/crd-server.js';
import { FakeNetBox } from '../netbox/fake-netbox.js';
import { renderWorkflow } from '../tinkerbell/render.js';
import { RIG_CATALOGUE } from '../swtpm/rig.js';
import { DISK, DISK_SERIAL, MAC, Machine } from './machine.js';

export type Backend = 'embedded' | 'netbox';
let labs = 0;
const HOST = 'node-1';

export interface LabOptions {
  backend: Backend;
  /** A class of the rig's catalogue: worker, controlplane, or api-edge (a control plane by its definition). */
  className?: 'worker' | 'controlplane' | 'api-edge';
  /** bmc_type amt: a Rufio Machine, so fleetd power-cycles it. */
  bmc?: boolean;
  autoProvision?: boolean;
  /** A class whose inputs `fleet render-class-inputs` did not make (a control plane without its bundle). */
  withoutInputsOf?: string;
  /** `--lease-duration`: how long a killed fleetd's Lease keeps its restart from reconciling (default 60 s). */
  leaseS?: number;
}

type Obj = {
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string>; creationTimestamp?: string };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
};

export class Lab {
  fleetd!: FleetServe;
  private netbox: FakeNetBox | undefined;
  private deviceId = 0;
  private db: Db | undefined;
  /** Reads what fleetd wrote, through the same backend. */
  inventory!: Inventory;
  /** `fleet serve`'s arguments, for a restart. */
  private args: string[] = [];

  private constructor(
    readonly opts: LabOptions,
    readonly dir: string,
    readonly kube: CrdServer,
    /** Tinkerbell's namespace for this lab: each lab has its own on the shared API server. */
    readonly ns: string,
    readonly machine: Machine,
    /** The installer image the Talos classes name: the one `docker`'s registry holds. */
    private readonly installer: string,
  ) {}

  /** A lab on `kube` and `docker` (the API server and Docker the test file shares), in a namespace of its own. */
  static async start(kube: CrdServer, docker: DockerLab, opts: LabOptions): Promise<Lab> {
    const dir = await mkdtemp(join(tmpdir(), 'fleet-lab-'));
    const ns = `lab-${(labs++).toString(36)}-${process.pid}`;
    // Flux has applied the Templates, as in the lab: through the real CRD's strict validation.
    for (const file of ['provision.yaml', 'provision-image.yaml']) {
      const t = parse(await readFile(new URL(`../../images/templates/${file}`, import.meta.url), 'utf8')) as { metadata: { namespace: string } };
      t.metadata.namespace = ns;
      await kube.create(t as never, 'templates');
    }
    const lab = new Lab(opts, dir, kube, ns, await Machine.create(docker), docker.installer.good);
    try {
      await lab.serve();
    } catch (err) {
      await lab.stop();
      throw err;
    }
    return lab;
  }

  /** The rig's catalogue, its Talos classes installing the registry's installer (a real engine pulls it). */
  private get catalogue() {
    const classes = Object.fromEntries(
      Object.entries(RIG_CATALOGUE.classes).map(([name, c]) => [name, 'installer_image' in c ? { ...c, installer_image: this.installer } : c]),
    );
    return { ...RIG_CATALOGUE, classes };
  }

  private get declaration() {
    return {
      model: 'm720q',
      serial: this.machine.serial,
      class: this.opts.className ?? 'worker',
      switch_port: 'Port 5',
      address: '10.0.1.11/24',
      ...(this.opts.bmc === false ? {} : { bmc_type: 'amt' }),
      disk: DISK,
      disk_serial: DISK_SERIAL,
      approved_ek_rsa2048: this.machine.binding.rsa2048,
      approved_ek_eccp256: this.machine.binding.eccp256,
    };
  }

  private async serve(): Promise<void> {
    const inputs = await classInputs(join(this.dir, 'talos'));
    const state = join(this.dir, 'state');
    // Its machine runs on this host, so loopback reaches fleetd; fleetd sends a node there only when told.
    const port = await freePort();
    const args = [
      '--state',
      state,
      '--listen',
      `127.0.0.1:${port}`,
      '--base-url',
      `http://127.0.0.1:${port}`,
      '--kubeconfig',
      this.kube.kubeconfigPath,
      '--namespace',
      this.ns,
      '--reconcile-interval',
      '1',
      '--class-inputs',
      inputs.dir,
      '--syslog-listen',
      'off',
    ];
    if (this.opts.withoutInputsOf) await rm(join(inputs.dir, this.opts.withoutInputsOf), { recursive: true });
    if (this.opts.autoProvision) args.push('--auto-provision');
    if (this.opts.leaseS) args.push('--lease-duration', String(this.opts.leaseS));
    const d = this.declaration;
    if (this.opts.backend === 'embedded') {
      const nodes = join(this.dir, 'nodes.yaml');
      await writeFile(nodes, stringify({ ...this.catalogue, nodes: { [HOST]: d } }));
      args.push('--nodes', nodes);
      this.fleetd = await startFleetServe((this.args = args));
      this.db = openDatabase(state);
      this.inventory = new EmbeddedInventory(nodes, this.db);
      return;
    }
    const nb = (this.netbox = await FakeNetBox.start());
    nb.addUser(TERRAFORM);
    nb.addUser('owner');
    this.deviceId = nb.addDevice({
      name: HOST,
      serial: d.serial,
      status: 'planned',
      primaryIp4: d.address,
      customFields: { class: d.class, install_disk: d.disk, install_disk_serial: d.disk_serial, ...(d.bmc_type ? { bmc_type: d.bmc_type } : {}) },
    });
    nb.cableToSwitchPort(nb.addInterface({ deviceId: this.deviceId, name: 'eno1' }), { switchName: 'usw-rack-1', port: d.switch_port });
    nb.setCustomFieldAs(TERRAFORM, this.deviceId, { approved_ek_hash: d.approved_ek_rsa2048, approved_ek_hash_ecc: d.approved_ek_eccp256 }, 'terraform apply');
    const token = join(this.dir, 'netbox-token');
    await writeFile(token, nb.token, { mode: 0o600 });
    const classes = join(this.dir, 'classes.yaml');
    await writeFile(classes, stringify({ classes: this.catalogue.classes }));
    args.push('--netbox-url', nb.url, '--netbox-token-file', token, '--binding-author', TERRAFORM, '--classes', classes);
    this.fleetd = await startFleetServe((this.args = args));
    this.inventory = new NetBoxInventory(new NetBoxClient({ url: nb.url, token: nb.token, retries: 0 }), {
      classes: readNodesFile(stringify({ classes: this.catalogue.classes })).file.classes,
    });
  }

  /** `fleet serve` started again after fleetd.kill(): the same state, inventory and API server, on the same port. */
  async restart(): Promise<void> {
    const port = new URL(this.fleetd.url).port;
    this.fleetd = await startFleetServe(this.args.map((a) => (a === '127.0.0.1:0' ? `127.0.0.1:${port}` : a)));
  }

  /** fleetd's own inventory and Tinkerbell options, which `fleet status` takes as an operator beside it gives them. */
  get statusArgs(): string[] {
    const shared = new Set(['--state', '--nodes', '--netbox-url', '--netbox-token-file', '--binding-author', '--classes', '--kubeconfig', '--namespace']);
    return this.args.flatMap((a, i) => (shared.has(a) ? [a, this.args[i + 1]!] : []));
  }

  fleetStatus(...extra: string[]): Promise<CliRun> {
    return fleetCli('status', ...this.statusArgs, ...extra);
  }

  async device(): Promise<Device> {
    return (await this.inventory.deviceByName(HOST))!;
  }

  async journal(): Promise<string[]> {
    return (await this.inventory.journalOf(await this.device())).map((j) => `${j.kind}: ${j.message}`);
  }

  /** The owner sets desired_action: `fleet inventory action`, or the custom field in NetBox's UI. */
  async setDesiredAction(action: DesiredAction): Promise<void> {
    if (this.netbox) return this.netbox.setCustomFieldAs('owner', this.deviceId, { desired_action: action });
    const r = await fleetCli('inventory', 'action', HOST, action, '--nodes', join(this.dir, 'nodes.yaml'), '--state', join(this.dir, 'state'));
    if (r.code !== 0) throw new Error(`fleet inventory action: ${r.stderr}`);
  }

  /** "Set AMT's address": the node's address (its AMT's), in the nodes file or NetBox. */
  async setAddress(address: string): Promise<void> {
    if (this.netbox) return void this.netbox.setPrimaryIp4(this.deviceId, address);
    await writeFile(join(this.dir, 'nodes.yaml'), stringify({ ...this.catalogue, nodes: { [HOST]: { ...this.declaration, address } } }));
  }

  /** What Talos (the installed node) or a person sets through NetBox: the device's status. */
  async status(): Promise<DeviceStatus> {
    return (await this.device()).status;
  }

  /** The machine boots HookOS and its agent attests. Answers the console lines. */
  async bootAndAttest(): Promise<string[]> {
    await this.machine.boot();
    return this.machine.attest(this.fleetd.url);
  }

  async workflows(): Promise<Obj[]> {
    return (await this.kube.objects('tinkerbell.org', 'v1alpha1', 'workflows', this.ns)) as unknown as Obj[];
  }

  async jobs(): Promise<Obj[]> {
    return (await this.kube.objects('bmc.tinkerbell.org', 'v1alpha1', 'jobs', this.ns)) as unknown as Obj[];
  }

  async hardware(): Promise<Obj | undefined> {
    return ((await this.kube.objects('tinkerbell.org', 'v1alpha1', 'hardware', this.ns)) as unknown as Obj[]).find((h) => h.metadata.name === HOST);
  }

  /** Waits until `check` answers something truthy (fleetd's passes run every second), or fails saying what it waited for. */
  async until<T>(what: string, check: () => T | Promise<T>, timeoutMs = 30_000): Promise<NonNullable<T>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = await check();
      if (v) return v as NonNullable<T>;
      if (Date.now() > deadline) {
        const journal = await this.journal().catch((err: unknown) => [String(err)]);
        throw new Error(`waited ${timeoutMs} ms for ${what}; the journal:\n${journal.join('\n')}\nfleetd said:\n${this.fleetd.lines.slice(-30).join('\n')}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** The unfinished Workflow fleetd created, once it exists. */
  run(): Promise<Obj> {
    return this.until('a Workflow', async () =>
      (await this.workflows()).find((w) => !['SUCCESS', 'FAILED', 'TIMEOUT'].includes(String(w.status?.state ?? ''))),
    );
  }

  /** Rufio: the Job's tasks ran (power off, one-time PXE, power on), or failed with BMC's message. */
  rufio(job: Obj, outcome: { failed?: string } = {}): Promise<void> {
    const conditions = outcome.failed ? [{ type: 'Failed', status: 'True', message: outcome.failed }] : [{ type: 'Completed', status: 'True' }];
    const status = { conditions, startTime: new Date().toISOString(), ...(outcome.failed ? {} : { completionTime: new Date().toISOString() }) };
    return this.kube.writeStatus('bmc.tinkerbell.org/v1alpha1', 'jobs', this.ns, job.metadata.name, status);
  }

  /** Rufio's Machine status: the BMC's power state. */
  power(state: 'on' | 'off'): Promise<void> {
    return this.kube.writeStatus('bmc.tinkerbell.org/v1alpha1', 'machines', this.ns, HOST, { powerState: state });
  }

  /**
   * The environment one action gets: the Workflow's Template, as the API server holds it, rendered
   * by Tinkerbell's own rendering with the Workflow and its Hardware (test/tinkerbell/render.ts).
   */
  async actionEnv(wf: Obj, action: ActionName): Promise<Record<string, string>> {
    const template = (await this.kube.get('tinkerbell.org/v1alpha1', 'templates', this.ns, String(wf.spec!.templateRef))) as { spec: { data: string } } | null;
    if (!template) throw new Error(`Tinkerbell holds no Template ${String(wf.spec!.templateRef)}`);
    const hardware = await this.kube.get('tinkerbell.org/v1alpha1', 'hardware', this.ns, String(wf.spec!.hardwareRef));
    const r = await renderWorkflow({ template: template.spec.data, workflow: wf, hardware });
    if (!r.ok) throw new Error(`Tinkerbell would not render ${String(wf.spec!.templateRef)} (${r.stage}): ${r.error}`);
    const a = r.tasks[0]!.actions.find((x) => x.name === action);
    if (!a) throw new Error(`${String(wf.spec!.templateRef)} has no action ${action}`);
    return { ...r.tasks[0]!.environment, ...a.environment };
  }

  /** tink-agent in the booted machine: runs the action, then reports the Workflow's status as Tinkerbell writes it. */
  async act(wf: Obj, action: ActionName, state: 'RUNNING' | 'SUCCESS' = 'RUNNING'): Promise<{ code: number; lines: string[] }> {
    const r = await this.machine.run(action, await this.actionEnv(wf, action));
    const now = new Date().toISOString();
    const actionState = r.code === 0 ? 'SUCCESS' : 'FAILED';
    await this.report(wf, r.code === 0 ? state : 'FAILED', [
      { name: action, state: actionState, executionStart: now, executionStop: now, message: r.code === 0 ? 'action completed' : 'action failed' },
    ]);
    return r;
  }

  /** Writes a Workflow's status in the current Tinkerbell's shape, through the status subresource. */
  async report(wf: Obj, state: string, actions: Array<Record<string, unknown>>): Promise<void> {
    const fresh = (await this.workflows()).find((w) => w.metadata.name === wf.metadata.name) ?? wf;
    const done = ((fresh.status?.tasks as Array<{ actions: Array<Record<string, unknown>> }> | undefined)?.[0]?.actions ?? []).filter(
      (a) => !actions.some((b) => b.name === a.name),
    );
    // The ids and agentID the CRD requires, as tink-server gives them (the agent is the machine's MAC).
    const all = [...done, ...actions].map((a) => ({ id: `${wf.metadata.name}-${String(a.name)}`, ...a }));
    const task = { id: `${wf.metadata.name}-provision`, name: 'provision', agentID: MAC, actions: all };
    const status = { state, agentID: MAC, globalTimeout: 3600, currentState: { agentID: MAC, actionName: actions.at(-1)?.name, state }, tasks: [task] };
    await this.kube.writeStatus('tinkerbell.org/v1alpha1', 'workflows', this.ns, wf.metadata.name, status);
  }

  async stop(): Promise<void> {
    await this.fleetd?.stop();
    this.db?.close();
    await this.netbox?.close();
    await this.machine.stop();
    await rm(this.dir, { recursive: true, force: true });
  }
}
