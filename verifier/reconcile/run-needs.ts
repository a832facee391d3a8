import type { Device } from '../inventory/device.js';
import type { JournalLine } from '../journal-line.js';
import type { RunKind } from './desired.js';
import { LINES } from './lines.js';

/** The declared fields a run of this kind needs (a provision also its class), by their field names. */
export function missingFields(device: Device, kind: RunKind): string[] {
  const need: Array<[string, unknown]> = [
    // The node's own address: its Hardware's DHCP lease, its AMT, its rendered config.
    ['address', device.address],
    ['install_disk', device.installDisk],
    ['install_disk_serial', device.installDiskSerial],
    ['switch_port', device.switchPort],
  ];
  if (kind === 'provision') need.push(['class', device.className]);
  return need.filter(([, v]) => v === undefined).map(([k]) => k);
}

/** Something a run lacks: what it is, and, where its name alone does not say, why or where from. */
export type Lack = string | { name: string; detail: string };

const nameOf = (l: Lack) => (typeof l === 'string' ? l : l.name);

/** The runbook's journal line for a run that cannot start: `<node> lacks …; the run waits for …`. */
export function lacksLine(hostname: string, missing: readonly Lack[]): JournalLine {
  const list = missing.map((l) => (typeof l === 'string' ? l : `${l.name} (${l.detail})`));
  return LINES.lacks(hostname, list.join(', '), missing.map(nameOf).join(' and '));
}
