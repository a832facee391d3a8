import { samePort } from '../attest/cabling.js';
import type { Device, JournalEntry } from '../inventory/device.js';
import type { WorkflowView } from '../reconcile/workflow-view.js';

/** One device as `fleet status` shows it: what the inventory holds, and its run as Tinkerbell reports it. */
export interface DeviceStatusRow {
  host: string;
  status: string;
  verdict: string | null;
  /** When its TPM last proved its EKs (the latest attestation that passed). */
  attestedAt: string | null;
  port: { seen: string | null; declared: string | null; matches: boolean };
  desiredAction: string | null;
  /** The device's last run, as Tinkerbell reports it; null when it has none, or the runs are not read. */
  run: { name: string; state: string; action: string | null; actionSeconds: number | null } | null;
  /** The inventory's last_run when Tinkerbell's API is not read, or no longer holds it. */
  lastRun: string | null;
  lastJournal: { kind: string; message: string; at: string } | null;
}

/** Pure: a device's row from what the inventory and Tinkerbell say, at `now`. */
export function deviceStatusRow(device: Device, journal: readonly JournalEntry[], run: WorkflowView | null, now: number): DeviceStatusRow {
  const seen = device.attested?.switchPort ?? null;
  const declared = device.switchPort ?? null;
  const last = journal.at(-1);
  const current = run ? (run.actions.find((a) => a.name === run.current) ?? null) : null;
  return {
    host: device.hostname,
    status: device.status,
    verdict: device.verdict ?? null,
    attestedAt: device.attested?.at ?? null,
    port: { seen, declared, matches: seen !== null && declared !== null && samePort(seen, declared) },
    desiredAction: device.desiredAction ?? null,
    run: run && {
      name: run.name,
      state: run.state,
      action: run.current,
      actionSeconds: current?.started != null ? Math.max(0, Math.round(((current.stopped ?? now) - current.started) / 1000)) : null,
    },
    lastRun: device.lastRun ?? null,
    lastJournal: last ? { kind: last.kind, message: last.message, at: last.at } : null,
  };
}

/** Which devices to show: by host name and by inventory status; an empty list keeps all. */
export interface StatusFilter {
  hosts: readonly string[];
  statuses: readonly string[];
}

export const shown = (device: Device, f: StatusFilter): boolean =>
  (f.hosts.length === 0 || f.hosts.includes(device.hostname)) && (f.statuses.length === 0 || f.statuses.includes(device.status));
