import type { Inventory } from '../inventory/inventory.js';
import type { Metrics } from '../metrics.js';
import type { Kube } from '../kube/client.js';
import type { LocalStore } from '../state/local-store.js';
import type { Plan, Step } from './plan.js';
import { isWaitOf } from './notes.js';

/**
 * Carries out a plan's steps in order. Stops at the first failure and throws it: the steps are
 * ordered so that whatever ran is consistent and the next pass finishes the rest (a run that was
 * created but not recorded is adopted, a power cycle that was not created is created).
 * Returns how many writes it made.
 */
export async function applyPlan(plan: Plan, kube: Kube, inventory: Inventory, store: LocalStore, now: () => Date, metrics?: Metrics): Promise<number> {
  let writes = 0;
  for (const step of plan.steps) {
    if (step.to === 'metric') {
      metrics?.bootedHookOSAfterInstall.labels(step.node).inc();
      continue;
    }
    await applyStep(step, kube, inventory, store, now);
    if (step.to !== 'notes') writes++;
  }
  return writes;
}

async function applyStep(step: Exclude<Step, { to: 'metric' }>, kube: Kube, inventory: Inventory, store: LocalStore, now: () => Date): Promise<void> {
  if (step.to === 'kube') {
    if (step.op === 'create') await kube.create(step.kind, step.object);
    else if (step.op === 'patch') await kube.patch(step.kind, step.name, step.patch, step.resourceVersion);
    else await kube.delete(step.kind, step.name);
    return;
  }
  if (step.to === 'notes') {
    store.forgetNotes((k) => !isWaitOf(k, step.waitsOf));
    return;
  }
  if (step.to === 'codes') {
    store.bindInstallCode(step.device.id, step.sha256, step.run);
    return;
  }
  if (step.op === 'journal') {
    await inventory.journal(step.device, step.kind, step.message);
    if (step.note) store.note(step.note, now().toISOString());
  } else if (step.op === 'recordRun') await inventory.recordRun(step.device, step.run);
  else await inventory.setStatus(step.device, step.status);
}
