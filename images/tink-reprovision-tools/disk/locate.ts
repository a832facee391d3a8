import type { ActionIO } from '../lib/io.js';
import { Refusal } from '../lib/refusal.js';
import { readBootId, readWipedRecord } from '../lib/fleet-dir.js';
import { SHARED_LINES, type Nothing } from '../lines/shared.js';
import type { Disk } from './disk.js';
import { identify } from './identity.js';
import { readDisks } from './sysfs.js';

/** The disk at `installDisk`, proven by the serial it reports (the identity rules), or a refusal. */
export async function locateDisk(io: ActionIO, serial: string, installDisk: string): Promise<Disk> {
  const disks = await readDisks(io.sysRoot, { allowLoop: io.allowLoop });
  const found = identify(disks, serial, installDisk, await io.deviceNumber(installDisk));
  if (!found.ok) throw new Refusal(found.reason);
  return found.disk;
}

/**
 * For the actions after wipe-disk, which get no serial: the disk must be the one wipe-disk wiped in
 * this very boot, and still report the serial it reported then. `nothing` ends the refusal lines
 * ("nothing installed"): a run that resumed in a new boot never writes to a disk it did not wipe.
 */
export async function confirmWipedDisk(io: ActionIO, installDisk: string, nothing: Nothing): Promise<Disk> {
  const record = await readWipedRecord(io);
  if (!record || record.bootId !== (await readBootId(io))) {
    throw new Refusal(SHARED_LINES.resumed(nothing));
  }
  if (record.disk !== installDisk) throw new Refusal(SHARED_LINES.notWiped(installDisk, record.disk, nothing));
  return locateDisk(io, record.serial, installDisk);
}
