import type { Device } from '../inventory/device.js';
import type { Kube } from '../kube/client.js';
import type { RunKind } from './desired.js';
import { isOwned, type KubeObject } from './objects.js';
import { isFinished, viewWorkflow } from './workflow-view.js';

/** A run fleetd started for a device and Tinkerbell has not finished: its boots get codes. */
export interface OpenRun {
  name: string;
  kind: RunKind;
}

/** Where the attestation service learns whether a device's run is under way. */
export interface Runs {
  open(device: Device): Promise<OpenRun | null>;
}

/** A fleetd without Tinkerbell starts no runs. */
export const NO_RUNS: Runs = { open: async () => null };

/** The device's last run, given its Workflow as Tinkerbell holds it: open while it exists, is fleetd's, and has not ended. */
export function openRun(device: Device, workflow: KubeObject | null): OpenRun | null {
  if (!workflow || !isOwned(workflow) || workflow.metadata.name !== device.lastRun) return null;
  const run = viewWorkflow(workflow);
  if (isFinished(run.state) || run.kind === 'other' || run.device !== device.hostname) return null;
  return { name: run.name, kind: run.kind };
}

/**
 * The device's last run (the inventory's `last_run`), read from Tinkerbell's own Workflow at each
 * admission rather than remembered, so a run that ended a moment ago hands out no more codes. A
 * failed read throws: no verdict, and the agent tries again.
 */
export class KubeRuns implements Runs {
  constructor(private readonly kube: Kube) {}

  async open(device: Device): Promise<OpenRun | null> {
    return device.lastRun ? openRun(device, await this.kube.get('Workflow', device.lastRun)) : null;
  }
}
