import { unsafeClassOf } from '../../shared/text/char-classes.js';
import type { Device, DeviceStatus, JournalKind } from '../inventory/device.js';
import type { NodeClass } from '../inventory/embedded/nodes-file.js';
import {
  desiredHardware,
  desiredMachine,
  desiredPowerCycle,
  desiredWorkflow,
  holds,
  splitCidr,
  templateFor,
  unquotableParameters,
  type RunKind,
} from './desired.js';
import { ANNOTATIONS, LABELS } from '../labels.js';
import { isOwned, type Kind, type KubeObject } from './objects.js';
import { isFinished, objectsOf, viewWorkflow, type WorkflowView } from './workflow-view.js';
import type { InstallCodeRecord } from '../state/local-store.js';
import { checkCabling } from '../attest/cabling.js';
import { lacksLine, missingFields, type Lack } from './run-needs.js';
import type { JournalLine } from '../journal-line.js';
import { AFTER_FAILURE, HOW, LINES, readHookosJournal } from './lines.js';
import { isWaitOf, noteKey, type Note } from './notes.js';

export interface ReconcileConfig {
  namespace: string;
  /**
   * How long a machine that attested with an intake's code still waits in HookOS: its run then
   * starts there, with no power cycle.
   */
  hookosWaitS: number;
  /** The Templates' global_timeout, until a Workflow's status says its own. */
  defaultGlobalTimeoutS: number;
  /** How long after a retirement's reported success the BMC may take to report the machine off. */
  corroborationS: number;
  /** Where a disk-image node fetches its seed (given to provision-image runs). */
  seedUrl?: string;
  /** Where an installed Talos node fetches its config with its code (talos.config=<url>/<code>). */
  configUrl?: string;
}

/** Everything a pass reads. Kube lists hold every object of the kind in the namespace, owned or not. */
export interface World {
  now: number;
  devices: Device[];
  classes: Map<string, NodeClass>;
  hardware: KubeObject[];
  machines: KubeObject[];
  workflows: KubeObject[];
  jobs: KubeObject[];
  /** The Templates Tinkerbell holds, by name (Flux applies them; a run waits for its own). */
  templates: Set<string>;
  /** Journal lines already written once, by key. */
  /** The keys of what was already journaled (notes.ts). */
  noted: Set<string>;
  /** Each device's latest install code (fleetd's store), by device id: which boot holds a code for which run. */
  codes: Map<string, InstallCodeRecord>;
  /** Each class's inputs (a Talos class's, a disk-image class's seed's): null when ready, else why a run of that class cannot install. */
  classInputs: Map<string, string | null>;
}

export type Step =
  | { to: 'kube'; op: 'create'; kind: Kind; object: KubeObject }
  | { to: 'kube'; op: 'patch'; kind: Kind; name: string; resourceVersion: string; patch: Record<string, unknown> }
  | { to: 'kube'; op: 'delete'; kind: Kind; name: string }
  | { to: 'inventory'; op: 'journal'; device: Device; kind: JournalKind; message: string; note?: string }
  | { to: 'inventory'; op: 'recordRun'; device: Device; run: string }
  | { to: 'inventory'; op: 'setStatus'; device: Device; status: DeviceStatus }
  | { to: 'codes'; op: 'bind'; device: Device; sha256: string; run: string }
  | { to: 'notes'; op: 'forget'; waitsOf: string }
  | { to: 'metric'; op: 'bootedHookOSAfterInstall'; node: string };

export interface Plan {
  steps: Step[];
  /** What the pass chose not to do, for the log (e.g. deletions held back). */
  warnings: string[];
}

/** How a run's machine reaches HookOS: it already waits there, Rufio power-cycles it, or a person does. */
type Boot = keyof typeof HOW;
const LATE_ACTIONS = new Set(['install', 'next-boot', 'reboot']);

const byName = (objs: KubeObject[]) => new Map(objs.map((o) => [o.metadata.name, o]));

/**
 * One reconcile pass, pure: the inventory and Tinkerbell's objects in, the minimal ordered writes
 * out. An unchanged world plans nothing. Objects fleet does not own are never changed or deleted.
 */
export function plan(world: World, cfg: ReconcileConfig): Plan {
  const steps: Step[] = [];
  const warnings: string[] = [];
  const hardware = byName(world.hardware);
  const machines = byName(world.machines);
  const jobs = byName(world.jobs);
  const runsOf = new Map<string, WorkflowView[]>();
  for (const wf of world.workflows.filter(isOwned)) {
    const v = viewWorkflow(wf);
    runsOf.set(v.device, [...(runsOf.get(v.device) ?? []), v]);
  }
  const ctx = { world, cfg, steps, hardware, machines, jobs };
  for (const device of world.devices)
    planDevice(
      ctx,
      device,
      (runsOf.get(device.hostname) ?? []).sort((a, b) => a.created - b.created),
    );

  // Objects of devices the inventory no longer exports. An inventory that suddenly exports none
  // is far likelier a broken read or filter than a retired fleet: then nothing is deleted.
  const known = new Set(world.devices.map((d) => d.hostname));
  const orphans: Array<[Kind, KubeObject]> = [];
  for (const [kind, list] of [
    ['Workflow', world.workflows],
    ['Job', world.jobs],
    ['Machine', world.machines],
    ['Hardware', world.hardware],
  ] as const) {
    for (const o of list) if (isOwned(o) && !known.has(o.metadata.labels?.[LABELS.device] ?? '')) orphans.push([kind, o]);
  }
  if (orphans.length && world.devices.length === 0) warnings.push(`the inventory exports no device; ${orphans.length} owned object(s) kept until it does`);
  else for (const [kind, o] of orphans) steps.push({ to: 'kube', op: 'delete', kind, name: o.metadata.name });
  return { steps, warnings };
}

interface Ctx {
  world: World;
  cfg: ReconcileConfig;
  steps: Step[];
  hardware: Map<string, KubeObject>;
  machines: Map<string, KubeObject>;
  jobs: Map<string, KubeObject>;
}

/** A run's start is journaled once, whichever pass (the one that started it, or a restart's adopting it) says it. */
function started(ctx: Ctx, device: Device, run: string, boot: string | undefined): void {
  journal(ctx, device, LINES.started(device.hostname, run, HOW[boot as Boot] ?? ''), { run, event: 'started' });
}

function journal(ctx: Ctx, device: Device, line: JournalLine, note?: Note): void {
  const key = note && noteKey(note);
  if (key && ctx.world.noted.has(key)) return;
  ctx.steps.push({ to: 'inventory', op: 'journal', device, kind: line.kind, message: line.message, ...(key ? { note: key } : {}) });
}

function planDevice(ctx: Ctx, device: Device, runs: WorkflowView[]): void {
  const { world, cfg } = ctx;
  const host = device.hostname;
  const live: WorkflowView[] = [];
  const after: Step[] = []; // inventory writes and journal lines, after the kube writes they describe
  const runWrites: Step[] = []; // a new run's Workflow (and its ended runs' deletion), after the Hardware it names

  for (const run of runs) {
    if (!isFinished(run.state)) {
      const limit = (run.globalTimeout ?? cfg.defaultGlobalTimeoutS) * 1000;
      if (!run.begun && world.now > run.created + limit) {
        // Tinkerbell sets no deadline before the first action: without this the run would wait forever.
        ctx.steps.push({ to: 'kube', op: 'delete', kind: 'Workflow', name: run.name });
        if (ctx.jobs.has(run.name) && isOwned(ctx.jobs.get(run.name)!)) ctx.steps.push({ to: 'kube', op: 'delete', kind: 'Job', name: run.name });
        journal({ ...ctx, steps: after }, device, LINES.abandoned(host, run.name, String(limit / 1000)), { run: run.name, event: 'abandoned' });
        continue;
      }
      live.push(run);
      continue;
    }
    outcome({ ...ctx, steps: after }, device, run);
  }

  seedWritten({ ...ctx, steps: after }, device, runs);

  let current: { run: WorkflowView; boot: string | undefined } | undefined;
  const last = live.at(-1);
  if (last) current = { run: last, boot: world.workflows.find((w) => w.metadata.name === last.name)?.metadata.labels?.[LABELS.boot] };
  if (device.desiredAction) {
    if (current && current.run.kind !== device.desiredAction) {
      // Another kind of run is under way: the new request waits for it to end, it is not dropped.
      journal({ ...ctx, steps: after }, device, LINES.waitsForRun(host, device.desiredAction, current.run.name), {
        host,
        event: 'waits',
        detail: `run:${current.run.name}`,
      });
    } else if (current && device.lastRun !== current.run.name) {
      // A run is under way: it is the run asked for, one fleetd started and then stopped before
      // recording: record and journal it now, as that pass would have.
      started({ ...ctx, steps: after }, device, current.run.name, current.boot);
      after.push({ to: 'inventory', op: 'recordRun', device, run: current.run.name });
    } else if (current) {
      // Asked again while its run is under way: that run is what was asked for. Kept, the request
      // would start a second run, and a second wipe, the moment this one succeeded.
      journal({ ...ctx, steps: after }, device, LINES.alreadyUnderWay(host, device.desiredAction, current.run.name));
      after.push({ to: 'inventory', op: 'recordRun', device, run: current.run.name });
    } else {
      current = startRun(
        ctx,
        device,
        device.desiredAction,
        runs.filter((r) => isFinished(r.state)),
        runWrites,
        after,
      );
    }
  } else {
    forgetWaits(ctx, host, after);
  }

  // Hardware first: Tinkerbell renders a Workflow only once the Hardware it names exists, and
  // allowPXE must be on before any power cycle sends the machine to netboot.
  if (device.mac) converge(ctx, device, 'Hardware', desiredHardware(device, cfg.namespace, current !== undefined), after);
  const machine = desiredMachine(device, cfg.namespace);
  if (machine) converge(ctx, device, 'Machine', machine, after);
  else if (ctx.machines.has(host) && isOwned(ctx.machines.get(host)!)) ctx.steps.push({ to: 'kube', op: 'delete', kind: 'Machine', name: host });
  ctx.steps.push(...runWrites);
  if (device.bmcType && device.bmcType !== 'amt')
    journal({ ...ctx, steps: after }, device, LINES.bmcNotDriven(host, device.bmcType), {
      host,
      event: 'bmc',
      detail: device.bmcType,
    });

  // A run that needs a power cycle gets its Rufio Job (again, if the pass that started it stopped early).
  if (current?.boot === 'bmc' && machine && !current.run.begun) {
    const job = ctx.jobs.get(current.run.name);
    if (!job) ctx.steps.push({ to: 'kube', op: 'create', kind: 'Job', object: desiredPowerCycle(device, current.run.name, cfg.namespace) });
    else {
      const failed = jobFailure(job);
      const address = (machine.spec!.connection as { host: string }).host;
      const tried = job.metadata.annotations?.[ANNOTATIONS.bmcAddress] ?? address;
      if (failed !== null && tried !== address && isOwned(job)) {
        // "Set AMT's address": the failed Job goes, and the next pass power-cycles the machine at the new one.
        ctx.steps.push({ to: 'kube', op: 'delete', kind: 'Job', name: current.run.name });
        journal({ ...ctx, steps: after }, device, LINES.jobAgain(host, current.run.name, address, tried));
      } else if (failed !== null) {
        journal({ ...ctx, steps: after }, device, LINES.jobFailed(host, current.run.name, failed || 'no message', address), {
          host,
          event: 'job-failed',
          detail: `${current.run.name} ${address}`,
        });
      }
    }
  }
  ctx.steps.push(...after);
}

/** Rufio's own message when its Job failed (a `Failed` condition that holds), else null. */
function jobFailure(job: KubeObject): string | null {
  const failed = objectsOf((job.status as { conditions?: unknown } | undefined)?.conditions).find((c) => c.type === 'Failed' && c.status === 'True');
  return failed ? (typeof failed.message === 'string' ? failed.message : '') : null;
}

/** Once desired_action is gone or a run starts, a later wait is news again. */
function forgetWaits(ctx: Ctx, host: string, after: Step[]): void {
  for (const k of ctx.world.noted) {
    if (isWaitOf(k, host)) return void after.push({ to: 'notes', op: 'forget', waitsOf: host });
  }
}

const charName = (c: string) =>
  c === '"'
    ? 'a double quote'
    : c === '\\'
      ? 'a backslash'
      : `the ${unsafeClassOf(c) ?? 'character'} U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * What keeps a run from finishing once it wiped the disk, or from reaching the machine it is for:
 * fields the device lacks, parts fleetd or Tinkerbell lack, a parameter the Template cannot quote,
 * and a switch port that is not the declared one. Empty when the run may start.
 */
function blockers(
  ctx: Ctx,
  device: Device,
  kind: RunKind,
  cls: NodeClass | undefined,
  parameters: Readonly<Record<string, string>>,
): { lacks: Lack[]; cabling?: JournalLine } {
  const { world, cfg } = ctx;
  const lacks: Lack[] = missingFields(device, kind);
  if (!device.mac) lacks.unshift('a MAC (it has not attested)');
  if (kind === 'provision' && device.className && !cls) lacks.push(`class ${device.className}'s definition`);
  const template = templateFor(kind, cls);
  if (!world.templates.has(template)) lacks.push(`the Template ${template} in Tinkerbell`);
  if (kind === 'provision' && cls) {
    if (cls.payload === 'talos' && !cfg.configUrl)
      lacks.push({ name: 'a config URL', detail: 'fleet serve --config-url: install would have nothing to fetch' });
    if (cls.payload !== 'talos' && !cfg.seedUrl) lacks.push({ name: 'a seed URL', detail: 'fleet serve --seed-url: its first boot would have no seed' });
    // A class the pass did not check counts as one whose inputs are missing.
    const inputs = world.classInputs.has(cls.name) ? world.classInputs.get(cls.name)! : `the class inputs of ${cls.name} were not checked`;
    if (inputs !== null) lacks.push({ name: 'its class inputs', detail: inputs });
  }
  if (lacks.length || !device.mac || !device.switchPort) return { lacks };
  const unquotable = unquotableParameters(parameters).map(({ key, char }) => ({
    name: `a quotable ${key}`,
    detail: `it holds ${charName(char)}, and the Template quotes it`,
  }));
  if (unquotable.length) return { lacks: unquotable };
  // The port the machine last attested from: a run must not power-cycle and wipe a machine cabled elsewhere.
  const seen = device.attested?.switchPort;
  if (!seen) return { lacks, cabling: LINES.noRecordedPort(device.hostname) };
  const cabling = checkCabling(device.hostname, device.switchPort, { port: seen, names: [seen] });
  return cabling.ok ? { lacks } : { lacks, cabling: cabling.journal };
}

/**
 * Starts the run desired_action asks for, or journals once what it waits for. The boot mode
 * follows the code: the run starts in HookOS as it is only when the machine's latest boot still
 * waits there holding an intake's code, which the run then takes; otherwise Rufio power-cycles
 * the machine, or a person must, so that its next boot attests for this run and gets the code.
 * Its kube writes go to `writes`, which the caller makes after the Hardware the Workflow names.
 */
function startRun(
  ctx: Ctx,
  device: Device,
  kind: RunKind,
  ended: WorkflowView[],
  writes: Step[],
  after: Step[],
): { run: WorkflowView; boot: string } | undefined {
  const { world, cfg } = ctx;
  const host = device.hostname;
  const cls = device.className ? world.classes.get(device.className) : undefined;
  const wf = desiredWorkflow(device, cls, kind, Math.floor(world.now / 1000), cfg.namespace, { seedUrl: cfg.seedUrl, configUrl: cfg.configUrl });
  const why = blockers(ctx, device, kind, cls, wf.spec!.hardwareMap as Record<string, string>);
  if (why.lacks.length || why.cabling) {
    const said = why.lacks.length ? lacksLine(host, why.lacks) : why.cabling!;
    journal({ ...ctx, steps: after }, device, said, { host, event: 'waits', detail: `${kind}:${said.message}` });
    return undefined;
  }
  const code = world.codes.get(device.id);
  const attestedAt = device.attested ? Date.parse(device.attested.at) : NaN;
  const holdsCode = !!code && code.run === null && code.bootId === device.attested?.bootId && world.now - attestedAt <= cfg.hookosWaitS * 1000;
  const canCycle = desiredMachine(device, cfg.namespace) !== null;
  const boot: Boot = holdsCode ? 'hookos' : canCycle ? 'bmc' : 'manual';
  wf.metadata.labels![LABELS.boot] = boot;
  // Tinkerbell's server takes a worker's Workflows in name order and answers with the first that
  // has tasks: one that has ended refuses every action ("Workflow not in pending or running
  // state"), so the new run would never start. The device's ended runs go first (their outcome is
  // journaled), with their Jobs.
  for (const old of ended) {
    writes.push({ to: 'kube', op: 'delete', kind: 'Workflow', name: old.name });
    const job = ctx.jobs.get(old.name);
    if (job && isOwned(job)) writes.push({ to: 'kube', op: 'delete', kind: 'Job', name: old.name });
  }
  writes.push({ to: 'kube', op: 'create', kind: 'Workflow', object: wf });
  // Journaled before it is recorded: a fleetd killed in between adopts the run at its restart and
  // would otherwise never say it started (the note keeps the adoption from saying it twice).
  started({ ...ctx, steps: after }, device, wf.metadata.name, boot);
  after.push({ to: 'inventory', op: 'recordRun', device, run: wf.metadata.name });
  if (holdsCode) after.push({ to: 'codes', op: 'bind', device, sha256: code.sha256, run: wf.metadata.name });
  if (kind === 'retire' && device.status !== 'decommissioning') after.push({ to: 'inventory', op: 'setStatus', device, status: 'decommissioning' });
  // A reinstall: fleetd serves a config only to a planned device, and turns it active when taken.
  if (kind === 'provision' && device.status !== 'planned') after.push({ to: 'inventory', op: 'setStatus', device, status: 'planned' });
  forgetWaits(ctx, host, after);
  return { run: viewWorkflow({ ...wf, metadata: { ...wf.metadata, creationTimestamp: new Date(world.now).toISOString() } }), boot };
}

/**
 * A cloud-init-nocloud node's seed is fetched in HookOS, by image-to-disk, which then writes it
 * with the image: the device is active once its run reports that action done, not at the fetch.
 */
function seedWritten(ctx: Ctx, device: Device, runs: WorkflowView[]): void {
  if (device.status !== 'planned' || ctx.world.classes.get(device.className ?? '')?.payload !== 'cloud-init-nocloud') return;
  const run = runs.find((r) => r.name === device.lastRun && r.kind === 'provision');
  if (run?.actions.some((a) => a.name === 'image-to-disk' && a.state === 'success'))
    ctx.steps.push({ to: 'inventory', op: 'setStatus', device, status: 'active' });
}

/** The journal line of a finished run, once; a retirement's success only once the BMC corroborates it. */
function outcome(ctx: Ctx, device: Device, run: WorkflowView): void {
  const host = device.hostname;
  const attestedAt = device.attested ? Date.parse(device.attested.at) : NaN;
  if (
    run.kind === 'provision' &&
    run.state === 'success' &&
    attestedAt > (run.endedAt ?? run.created) &&
    !ctx.world.noted.has(noteKey({ run: run.name, event: 'hookos-after' }))
  ) {
    // The install succeeded, yet the machine netbooted HookOS again instead of its disk (PXE first in its boot order).
    journal(ctx, device, LINES.hookosAfterSuccess(host, run.name), { run: run.name, event: 'hookos-after' });
    ctx.steps.push({ to: 'metric', op: 'bootedHookOSAfterInstall', node: host });
  }
  const note: Note = { run: run.name, event: 'ended' };
  if (ctx.world.noted.has(noteKey(note))) return;
  if (run.state === 'success') {
    if (run.kind !== 'retire') return journal(ctx, device, LINES.succeeded(host, run.name), note);
    // The agent holds no credential: only the BMC's word that the machine is off confirms the retirement.
    const reported = (ctx.machines.get(host)?.status as { powerState?: unknown } | undefined)?.powerState;
    const power = typeof reported === 'string' ? reported : undefined;
    if (power === 'off') {
      journal(ctx, device, LINES.retired(host, run.name), note);
      ctx.steps.push({ to: 'inventory', op: 'setStatus', device, status: 'offline' });
      return;
    }
    if (ctx.world.now - (run.endedAt ?? run.created) < ctx.cfg.corroborationS * 1000) return; // the BMC may not have caught up yet
    return journal(ctx, device, LINES.retirementContradicted(host, run.name, power ?? 'unknown'), note);
  }
  const state = run.state.toUpperCase();
  if (run.state === 'timeout' && run.current && LATE_ACTIONS.has(run.current) && device.status === 'active') {
    return journal(ctx, device, LINES.timedOutInstalled(host, run.name, run.current), note);
  }
  const at = run.actions.find((a) => a.name === run.current);
  const address = device.address ? splitCidr(device.address)?.ip : undefined;
  const read = address ? readHookosJournal(address) : '';
  const refused = run.current === 'wipe-disk' && ctx.world.noted.has(noteKey({ run: run.name, event: 'code-refused' }));
  const now = AFTER_FAILURE[refused ? 'codeRefused' : run.kind === 'retire' ? 'retire' : 'provision'];
  const line =
    run.renderError !== null
      ? LINES.renderFailed(host, run.name, run.renderError, now)
      : LINES.ended(host, run.name, state, run.current ?? 'its first action', at?.message || 'no message', read, now);
  // A retirement that did not finish may have left the disk unwiped: danger, not a warning.
  journal(ctx, device, run.kind === 'retire' ? { ...line, kind: 'danger' } : line, note);
}

/** Creates the object when absent, patches fleet's fields when they differ, leaves others' objects alone. */
function converge(ctx: Ctx, device: Device, kind: 'Hardware' | 'Machine', desired: KubeObject, after: Step[]): void {
  const actual = (kind === 'Hardware' ? ctx.hardware : ctx.machines).get(desired.metadata.name);
  if (!actual) return void ctx.steps.push({ to: 'kube', op: 'create', kind, object: desired });
  if (!isOwned(actual)) {
    return journal({ ...ctx, steps: after }, device, LINES.foreignObject(device.hostname, kind, desired.metadata.name), {
      host: device.hostname,
      event: 'foreign',
      detail: kind,
    });
  }
  if (holds(actual.spec, desired.spec) && holds(actual.metadata.labels, desired.metadata.labels)) return;
  ctx.steps.push({
    to: 'kube',
    op: 'patch',
    kind,
    name: desired.metadata.name,
    resourceVersion: actual.metadata.resourceVersion ?? '',
    patch: { metadata: { labels: desired.metadata.labels }, spec: desired.spec },
  });
}
