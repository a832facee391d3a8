/** Every line next-boot prints (after `next-boot: `); lines/disk.ts and lines/shared.ts hold the ones it shares. */
import { said } from '../../../shared/text/line-def.js';
import { entryLabel } from '../boot/efibootmgr.js';
import { REMOVABLE_LOADER } from '../disk/esp.js';

export const NEXT_BOOT_LINES = {
  skipped: said({
    when: 'OS is empty (a retirement): it does nothing (exit 0)',
    args: [],
    text: () => 'OS is empty: nothing was installed, so the boot entries stay as they are',
  }),
  noLoader: said({
    when: "refuses: the ESP holds no loader at the removable-media path, which every payload's image carries",
    args: ['INSTALL_DISK', 'partition'],
    text: (disk, partition) => `the EFI system partition of ${disk} (partition ${partition}) holds no ${REMOVABLE_LOADER}`,
  }),
  deletedStale: said({
    when: "an entry of this payload's label loads something else (an earlier install's): it is deleted",
    args: ['entry', 'OS'],
    text: (num, os) => `deleted Boot${num}, a "${entryLabel(os)}" entry that loads something else`,
  }),
  entry: said({
    when: 'the firmware holds the one active entry, read back',
    args: ['entry', 'OS', 'partition', 'partition GUID', 'INSTALL_DISK'],
    text: (num, os, partition, guid, disk) => `Boot${num} "${entryLabel(os)}" loads ${REMOVABLE_LOADER} from partition ${partition} (${guid}) of ${disk}`,
  }),
  order: said({
    when: 'the entry is BootNext and first in BootOrder, read back',
    args: ['entry', 'BootOrder'],
    text: (num, order) => `BootNext is ${num}; BootOrder is ${order}`,
  }),
};

/** next-boot's failures: each printed as `failed: <message>` (SHARED_LINES.failed). */
export const NEXT_BOOT_FAILURES = {
  efibootmgrFailed: said({
    when: 'efibootmgr exited non-zero',
    args: ['its arguments', 'its last line'],
    text: (args, why) => `efibootmgr ${args}: ${why}`,
  }),
  notCreated: said({
    when: 'efibootmgr -c made no entry that loads the loader',
    args: ['OS', 'INSTALL_DISK'],
    text: (os, disk) => `efibootmgr created no "${entryLabel(os)}" entry that loads ${REMOVABLE_LOADER} from ${disk}`,
  }),
  notKept: said({
    when: 'the firmware reads back otherwise than set',
    args: ['entry', 'BootNext', 'BootOrder'],
    text: (num, next, order) => `the firmware did not keep Boot${num} as set: BootNext ${next}, BootOrder ${order}`,
  }),
};

/** How notKept shows a BootNext or BootOrder the firmware does not hold. */
export const UNSET = 'unset';
