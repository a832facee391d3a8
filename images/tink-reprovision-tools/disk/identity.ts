import { DISK_LINES, WHAT_IS_THERE } from '../lines/disk.js';
import { describeDisk, type Disk } from './disk.js';

export type Identity = { ok: true; disk: Disk } | { ok: false; reason: string };

/**
 * Which disk the declaration names, decided from what the disks report and never from a /dev name:
 * exactly one disk must report the declared serial, be fixed (not removable, not on USB), be the
 * very device at `installDisk` (`installDev`, its device number, or null when nothing is there),
 * writable, and free of RAID, LVM and device-mapper. The reasons are the runbook's lines.
 */
export function identify(disks: readonly Disk[], serial: string, installDisk: string, installDev: string | null): Identity {
  const named = disks.filter((d) => d.serials.includes(serial));
  if (named.length === 0) return { ok: false, reason: DISK_LINES.noneReports(serial) };
  if (named.length > 1) return { ok: false, reason: DISK_LINES.manyReport(serial) };
  const disk = named[0]!;
  if (disk.removable) return { ok: false, reason: DISK_LINES.removable(disk.name) };
  if (disk.usb) return { ok: false, reason: DISK_LINES.onUsb(disk.name) };
  if (installDev !== disk.dev) {
    return { ok: false, reason: DISK_LINES.elsewhere(installDisk, whatIsAt(disks, installDev), serial, disk.name) };
  }
  if (disk.readOnly) return { ok: false, reason: DISK_LINES.readOnly(installDisk) };
  if (disk.holders.length > 0) return { ok: false, reason: DISK_LINES.held(installDisk, disk.holders.join(', ')) };
  return { ok: true, disk };
}

function whatIsAt(disks: readonly Disk[], dev: string | null): string {
  if (dev === null) return WHAT_IS_THERE.missing();
  const disk = disks.find((d) => d.dev === dev);
  if (disk) return describeDisk(disk);
  const owner = disks.find((d) => d.partitions.some((p) => p.dev === dev));
  if (owner) return WHAT_IS_THERE.partition(owner.partitions.find((p) => p.dev === dev)!.name, describeDisk(owner));
  return WHAT_IS_THERE.stranger(dev);
}
