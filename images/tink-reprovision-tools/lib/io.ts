import { stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { consoleSay } from '../../../shared/console/console-say.js';
import { ACTION_FLEET_DIR } from '../../../shared/worker/marker.js';
import { spawnRunner, type Runner } from './run.js';

/**
 * Everything an action touches outside its own logic. The defaults are the machine's; tests give a
 * fake sysfs and /proc, their own /tmp/fleet, stub tools on PATH and the device numbers of their
 * disk files. Nothing here is read from the environment: a Template cannot point an action elsewhere.
 */
export interface ActionIO {
  /** Prints one whole line on stdout and the machine's console. */
  say(line: string): void;
  sysRoot: string;
  procRoot: string;
  /** HookOS's /worker/fleet as the action sees it: the attestation marker, the install code, the wipe record. */
  fleetDir: string;
  /** Where private scratch files go (a seed with the install code, an extracted tar). */
  tmpDir: string;
  run: Runner;
  /** "major:minor" of the block device at `path`, or null when nothing or something else is there. */
  deviceNumber(path: string): Promise<string | null>;
  /** Loop devices are no install disks; the real-disk tests attach their disks as loop devices. */
  allowLoop: boolean;
  /** Waits: the machine's clock, a test's at once. */
  sleep(ms: number): Promise<void>;
}

/** The machine's own; `consolePath` is where its lines also go (the Template mounts /dev). */
export function machineIO(consolePath = '/dev/console'): ActionIO {
  return {
    say: consoleSay(consolePath),
    sysRoot: '/sys',
    procRoot: '/proc',
    fleetDir: ACTION_FLEET_DIR,
    tmpDir: tmpdir(),
    run: spawnRunner(),
    deviceNumber: blockDeviceNumber,
    allowLoop: false,
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
  };
}

/** The device number of a block device node, from st_rdev as glibc's major()/minor() split it. */
export async function blockDeviceNumber(path: string): Promise<string | null> {
  const st = await stat(path, { bigint: true }).catch(() => null);
  if (!st?.isBlockDevice()) return null;
  const r = st.rdev;
  const major = ((r >> 8n) & 0xfffn) | ((r >> 32n) & ~0xfffn);
  const minor = (r & 0xffn) | ((r >> 12n) & ~0xffn);
  return `${major}:${minor}`;
}
