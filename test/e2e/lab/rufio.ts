/**
 * Rufio for the e2e lab, on the real CRD API server, as tinkerbell/tinkerbell's rufio/ behaves
 * (internal/controller/job.go, task.go, machine.go): a Job is marked Running with its start time,
 * its Machine is looked up, each of its tasks is run in order against the BMC at the Machine's
 * connection host, and the Job ends Completed (with its completion time) or Failed, naming the
 * task that failed ("task <ns>/<job>-task-<i> failed"), the task's own reason being Rufio's
 * "Failed to connect to BMC: …" when nothing answers there. Each Machine's status holds its power
 * state and whether its BMC is contactable. The BMCs are the e2e machines, by the host fleetd
 * gives their Machine (the node's address), powered over QMP.
 */
import type { CrdServer } from '../../kube/crd-server.js';
import type { PoweredMachine } from './powered-machine.js';

type Json = Record<string, unknown>;
interface Obj {
  metadata: { name: string };
  spec?: Json;
  status?: Json;
}
type JobTask = { powerAction?: string; oneTimeBootDeviceAction?: { device?: string[] }; bootDevice?: { device?: string } };

const BMC = 'bmc.tinkerbell.org/v1alpha1';
const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
const condition = (status: Json | undefined, type: string) =>
  ((status?.conditions as Array<{ type: string; status: string }> | undefined) ?? []).some((c) => c.type === type && c.status === 'True');

export class Rufio {
  private timer: NodeJS.Timeout | undefined;
  private pass: Promise<void> = Promise.resolve();
  /** Every Job it ran, in order, with how it ended. */
  readonly ran: Array<{ job: string; failed: string | null }> = [];

  private constructor(
    private readonly kube: CrdServer,
    private readonly ns: string,
    private readonly bmcs: Map<string, PoweredMachine>,
  ) {}

  /** `bmcs`: connection host → the machine its BMC powers. A host not in it does not answer. */
  static start(kube: CrdServer, ns: string, bmcs: Map<string, PoweredMachine>): Rufio {
    const r = new Rufio(kube, ns, bmcs);
    r.timer = setInterval(() => (r.pass = r.pass.then(() => r.reconcile()).catch(() => undefined)), 500);
    return r;
  }

  private list(plural: string): Promise<Obj[]> {
    return this.kube.objects('bmc.tinkerbell.org', 'v1alpha1', plural, this.ns) as unknown as Promise<Obj[]>;
  }

  private status(plural: string, name: string, status: Json): Promise<void> {
    return this.kube.writeStatus(BMC, plural, this.ns, name, status);
  }

  private async reconcile(): Promise<void> {
    const machines = await this.list('machines');
    for (const job of await this.list('jobs')) {
      if (condition(job.status, 'Completed') || condition(job.status, 'Failed')) continue;
      await this.runJob(job, machines);
    }
    for (const m of machines) {
      const bmc = this.bmcs.get(String((m.spec?.connection as Json | undefined)?.host ?? ''));
      const want = bmc
        ? { powerState: bmc.power, conditions: [{ type: 'Contactable', status: 'True' }] }
        : { powerState: 'unknown', conditions: [{ type: 'Contactable', status: 'False', message: this.unreachable(m) }] };
      if (m.status?.powerState !== want.powerState) await this.status('machines', m.metadata.name, want);
    }
  }

  private unreachable(m: Obj): string {
    const c = (m.spec?.connection ?? {}) as { host?: string; port?: number };
    return `Failed to connect to BMC: dial tcp ${c.host}:${c.port ?? 623}: connect: no route to host`;
  }

  private async runJob(job: Obj, machines: Obj[]): Promise<void> {
    const name = job.metadata.name;
    const startTime = now();
    await this.status('jobs', name, { startTime, conditions: [{ type: 'Running', status: 'True' }] });
    const fail = async (message: string) => {
      this.ran.push({ job: name, failed: message });
      await this.status('jobs', name, {
        startTime,
        conditions: [
          { type: 'Running', status: 'True' },
          { type: 'Failed', status: 'True', message },
        ],
      });
    };
    const ref = (job.spec?.machineRef ?? {}) as { name?: string; namespace?: string };
    const machine = machines.find((m) => m.metadata.name === ref.name);
    if (!machine) return fail(`get Job ${this.ns}/${name} MachineRef: machine ${ref.namespace}/${ref.name} not found`);
    const bmc = this.bmcs.get(String((machine.spec?.connection as Json | undefined)?.host ?? ''));
    const tasks = (job.spec?.tasks as JobTask[] | undefined) ?? [];
    for (const [i, task] of tasks.entries()) {
      // Rufio's Task: the task's own reason is on the Task object; the Job names the task.
      if (!bmc) return fail(`task ${this.ns}/${name}-task-${i} failed`);
      if (task.powerAction === 'off' || task.powerAction === 'soft') await bmc.powerOff();
      else if (task.powerAction === 'on') await bmc.powerOn();
      else if (task.powerAction === 'cycle' || task.powerAction === 'reset') await bmc.powerOff().then(() => bmc.powerOn());
      const device = task.oneTimeBootDeviceAction?.device?.[0] ?? task.bootDevice?.device;
      if (device === 'pxe' || device === 'disk') bmc.setOneTimeBoot(device);
    }
    this.ran.push({ job: name, failed: null });
    await this.status('jobs', name, {
      startTime,
      completionTime: now(),
      conditions: [
        { type: 'Running', status: 'True' },
        { type: 'Completed', status: 'True' },
      ],
    });
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.pass;
  }
}
