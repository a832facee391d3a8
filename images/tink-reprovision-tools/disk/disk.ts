import { WHAT_IS_THERE } from '../lines/disk.js';

/** A whole disk as the kernel shows it in sysfs: the facts wipe-disk decides on, nothing from /dev names. */
export interface Disk {
  /** The kernel's name: vda, nvme0n1, sda. */
  name: string;
  /** "major:minor": what a /dev path must resolve to before anything is written through it. */
  dev: string;
  /** Every serial the disk reports, best source first (serial, device/serial, VPD 0x80, wwid, USB). */
  serials: string[];
  model: string | null;
  sizeBytes: number;
  removable: boolean;
  usb: boolean;
  readOnly: boolean;
  /** Devices stacked on the disk or on one of its partitions (md, dm: RAID, LVM, crypt). */
  holders: string[];
  partitions: Partition[];
  /** The disk takes discards (queue/discard_max_bytes > 0). */
  discard: boolean;
}

export interface Partition {
  name: string;
  dev: string;
}

/** How a line names a disk: the first serial it reports is the one a person reads on its label. */
export function describeDisk(d: Disk): string {
  return d.serials.length > 0 ? WHAT_IS_THERE.disk(d.serials[0]!) : WHAT_IS_THERE.noSerial();
}
