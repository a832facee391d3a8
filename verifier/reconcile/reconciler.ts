import { errorMessage } from '../../shared/errors.js';
import type { Inventory } from '../inventory/inventory.js';
import type { Metrics } from '../metrics.js';
import { KubeError, type Kube } from '../kube/client.js';
import type { LocalStore } from '../state/local-store.js';
import { applyPlan } from './apply.js';
import { plan, type ReconcileConfig, type World } from './plan.js';
import { noteSubject } from './notes.js';

export interface PassResult {
  writes: number;
  /** Steps planned in the last attempt (for the log and the benchmark). */
  planned: number;
  /** Set when the pass stopped; nothing after the failing step was written. */
  error?: string;
  warnings: string[];
}

/** A pass re-reads and re-plans after a conflict (someone else changed an object), up to this many times. */
const ATTEMPTS = 3;

/**
 * One reconcile pass: read the inventory and Tinkerbell's objects, plan, apply. A read that fails
 * stops the pass before any write; a conflict starts the pass over from a fresh read.
 */
/** Why a class's inputs cannot render a node's config or seed (null: they can): Installs.classInputsProblem. */
export type ClassInputsCheck = (className: string) => Promise<string | null>;

export interface ReconcilerParts {
  kube: Kube;
  inventory: Inventory;
  store: LocalStore;
  classInputs: ClassInputsCheck;
  metrics?: Metrics;
  now?: () => Date;
}

export class Reconciler {
  private readonly kube: Kube;
  private readonly inventory: Inventory;
  private readonly store: LocalStore;
  private readonly classInputs: ClassInputsCheck;
  private readonly metrics: Metrics | undefined;
  private readonly now: () => Date;

  constructor(
    parts: ReconcilerParts,
    private readonly config: ReconcileConfig,
  ) {
    this.kube = parts.kube;
    this.inventory = parts.inventory;
    this.store = parts.store;
    this.classInputs = parts.classInputs;
    this.metrics = parts.metrics;
    this.now = parts.now ?? (() => new Date());
  }

  async read(): Promise<World> {
    const [devices, classes, hardware, machines, workflows, jobs, templates] = await Promise.all([
      this.inventory.listDevices(),
      this.inventory.classes(),
      // Hardware and Machines unfiltered: a same-named object fleetd does not own must be seen, and left alone.
      this.kube.list('Hardware'),
      this.kube.list('Machine'),
      this.kube.list('Workflow'),
      this.kube.list('Job'),
      this.kube.list('Template'),
    ]);
    const classInputs = new Map<string, string | null>();
    for (const cls of classes.values()) classInputs.set(cls.name, await this.classInputs(cls.name));
    return {
      now: this.now().getTime(),
      devices,
      classes,
      hardware,
      machines,
      workflows,
      jobs,
      templates: new Set(templates.map((t) => t.metadata.name)),
      noted: this.store.noted(),
      codes: this.store.installCodes(),
      classInputs,
    };
  }

  async pass(): Promise<PassResult> {
    const result = await this.attempt();
    this.metrics?.passes.labels(result.error ? 'failed' : 'ok').inc();
    this.metrics?.reconcileWrites.inc(result.writes);
    return result;
  }

  private async attempt(): Promise<PassResult> {
    let writes = 0;
    for (let attempt = 1; ; attempt++) {
      let world: World;
      try {
        world = await this.read();
      } catch (err) {
        return { writes, planned: 0, error: `read: ${errorMessage(err)}`, warnings: [] };
      }
      const p = plan(world, this.config);
      try {
        writes += await applyPlan(p, this.kube, this.inventory, this.store, this.now, this.metrics);
        this.forgetStaleNotes(world);
        return { writes, planned: p.steps.length, warnings: p.warnings };
      } catch (err) {
        if (err instanceof KubeError && (err.code === 'kube-conflict' || err.code === 'kube-exists') && attempt < ATTEMPTS) continue;
        return { writes, planned: p.steps.length, error: errorMessage(err), warnings: p.warnings };
      }
    }
  }

  /** Notes about Workflows that no longer exist, and devices no longer exported, are dropped. */
  private forgetStaleNotes(world: World): void {
    const runs = new Set(world.workflows.map((w) => w.metadata.name));
    const hosts = new Set(world.devices.map((d) => d.hostname));
    if (world.devices.length === 0) return;
    this.store.forgetNotes((k) => {
      const about = noteSubject(k);
      return about === null || ('run' in about ? runs.has(about.run) : hosts.has(about.host));
    });
  }
}
