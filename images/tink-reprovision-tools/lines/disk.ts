/**
 * The lines about the install disk that several actions say: wipe-disk's identity refusals (which
 * install, image-to-disk and next-boot repeat against the serial wipe-disk recorded), and the EFI
 * system partition's (image-to-disk, next-boot).
 */
import { said } from '../../../shared/text/line-def.js';

export const DISK_LINES = {
  noneReports: said({ when: 'refuses: no disk reports the serial', args: ['serial'], text: (serial) => `no disk reports the serial ${serial}` }),
  manyReport: said({
    when: 'refuses: two or more disks report the serial',
    args: ['serial'],
    text: (serial) => `more than one disk reports the serial ${serial}`,
  }),
  removable: said({ when: 'refuses: the disk that reports the serial is removable', args: ['name'], text: (name) => `/dev/${name} is removable` }),
  onUsb: said({ when: 'refuses: the disk that reports the serial is on USB', args: ['name'], text: (name) => `/dev/${name} is on USB` }),
  elsewhere: said({
    when: 'refuses: INSTALL_DISK is not the disk that reports the serial (slots swapped, a USB disk took its name)',
    args: ['INSTALL_DISK', 'what is there', 'serial', 'name'],
    text: (disk, what, serial, name) => `${disk} is ${what}, but the disk that reports ${serial} is /dev/${name}`,
  }),
  readOnly: said({ when: 'refuses: the disk is read-only', args: ['INSTALL_DISK'], text: (disk) => `${disk} is read-only` }),
  held: said({
    when: 'refuses: RAID, LVM or device-mapper hold the disk or one of its partitions',
    args: ['INSTALL_DISK', 'holders'],
    text: (disk, holders) => `${disk} is held by ${holders} (RAID, LVM or device-mapper)`,
  }),
  noGpt: said({ when: 'refuses: the disk has no GPT', args: ['disk'], text: (disk) => `${disk} has no GPT` }),
  noEsp: said({ when: 'refuses: the disk has no EFI system partition', args: ['disk'], text: (disk) => `${disk} has no EFI system partition` }),
  manyEsps: said({
    when: 'refuses: the disk has more than one EFI system partition',
    args: ['disk', 'count', 'partitions'],
    text: (disk, count, partitions) => `${disk} has ${count} EFI system partitions: ${partitions}`,
  }),
};

/** What sits at INSTALL_DISK when it is not the disk that reports the serial: the `<what is there>`. */
export const WHAT_IS_THERE = {
  disk: said({ when: 'a disk', args: ['its serial'], text: (serial) => `the disk with serial ${serial}` }),
  noSerial: said({ when: 'a disk that reports no serial', args: [], text: () => 'a disk with no serial' }),
  partition: said({
    when: "a disk's partition",
    args: ['partition', 'the disk'],
    text: (partition, disk) => `partition ${partition} of ${disk}`,
  }),
  missing: said({ when: 'nothing', args: [], text: () => 'missing' }),
  stranger: said({ when: 'a block device that is no disk fleet installs to', args: ['major:minor'], text: (dev) => `device ${dev}, which is no install disk` }),
};
