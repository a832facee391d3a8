import type { Inventory } from '../inventory/inventory.js';
import type { Kube } from '../kube/client.js';
import { viewWorkflow, type WorkflowView } from '../reconcile/workflow-view.js';
import { deviceStatusRow, shown, type DeviceStatusRow, type StatusFilter } from './device-status.js';

/**
 * Every device the filter keeps, by host name, with its last journal line and its last run as
 * Tinkerbell reports it: read through the same inventory and API clients fleetd uses.
 */
export async function readStatus(inventory: Inventory, kube: Kube | null, filter: StatusFilter, now: number): Promise<DeviceStatusRow[]> {
  const devices = (await inventory.listDevices())
    .filter((d) => shown(d, filter))
    .sort((a, b) => (a.hostname < b.hostname ? -1 : a.hostname > b.hostname ? 1 : 0));
  const runs = new Map<string, WorkflowView>();
  if (kube) for (const wf of await kube.list('Workflow')) runs.set(wf.metadata.name, viewWorkflow(wf));
  return Promise.all(devices.map(async (d) => deviceStatusRow(d, await inventory.journalOf(d), (d.lastRun && runs.get(d.lastRun)) || null, now)));
}
