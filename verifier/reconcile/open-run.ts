import type { Device } from '../inventory/device.js';
import type { Kube } from '../kube/client.js';
import type { RunKind } from './desired.js';
import { noteKey } from './notes.js';
import { isOwned, type KubeObject } from './objects.js';
import { isFinished, viewWorkflow } from './workflow-view.js';

/**
 * A run fleetd started for a device and Tinkerbell has not finished: its boots get codes. Or,
 * `resumes`, one that ended at wipe-disk after fleetd refused its boot a code (a cable, a token, a
 * boot policy): nothing was wiped, so the runbook's "fix it and power-cycle" goes on with it, and
 * a boot that now gets a code starts it again.
 */
export interface OpenRun {
  name: string;
  kind: RunKind;
  resumes?: true;
}

/** Where the attestation service learns whether a device's run is under way. */
export interface Runs {
  open(device: Device): Promise<OpenRun | null>;
}

/** A fleetd without Tinkerbell starts no runs. */
export const NO_RUNS: Runs = { open: async () => null };

/**
 * The device's last run, given its Workflow as Tinkerbell holds it and the notes fleetd keeps:
 * open while it exists, is fleetd's, and has not ended; resumable once it failed at wipe-disk
 * after a boot of it was refused its code.
 */
export function openRun(device: Device, workflow: KubeObject | null, isNoted: (key: string) => boolean = () => false): OpenRun | null {
  if (!workflow || !isOwned(workflow) || workflow.metadata.name !== device.lastRun) return null;
  const run = viewWorkflow(workflow);
  if (run.kind === 'other' || run.device !== device.hostname) return null;
  if (!isFinished(run.state)) return { name: run.name, kind: run.kind };
  if (run.state !== 'failed' || run.current !== 'wipe-disk') return null;
  return isNoted(noteKey({ run: run.name, event: 'code-refused' })) ? { name: run.name, kind: run.kind, resumes: true } : null;
}

/**
 * The device's last run (the inventory's `last_run`), read from Tinkerbell's own Workflow at each
 * admission rather than remembered, so a run that ended a moment ago hands out no more codes. A
 * failed read throws: no verdict, and the agent tries again.
 */
export class KubeRuns implements Runs {
  constructor(
    private readonly kube: Kube,
    // One keyed lookup, and only for a run that ended: admission reads this at every attestation.
    private readonly notes: { isNoted(key: string): boolean },
  ) {}

  async open(device: Device): Promise<OpenRun | null> {
    return device.lastRun ? openRun(device, await this.kube.get('Workflow', device.lastRun), (key) => this.notes.isNoted(key)) : null;
  }
}
