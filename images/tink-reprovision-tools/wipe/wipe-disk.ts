import { locateDisk } from '../disk/locate.js';
import type { Action } from '../lib/action.js';
import { bootPassedAttestation, readBootId, readInstallCode, writeWipedRecord } from '../lib/fleet-dir.js';
import { Refusal } from '../lib/refusal.js';
import { SHARED_LINES } from '../lines/shared.js';
import { WIPE_LINES } from '../lines/wipe.js';
import { erase, partitionNodes } from './erase.js';
import { preflight } from './preflight.js';
import { installsDiskImage, lackRefusal } from './run-needs.js';

/**
 * wipe-disk: the only action that destroys data on a disk it found by itself. Every refusal comes
 * before the first write, in the runbook's words: among them a run that could not install after the
 * wipe (a Workflow never wipes a disk and installs nothing; a retirement, INSTALL false, wipes
 * only). Then it wipes the declared disk and records the boot it wiped in, which install,
 * image-to-disk and next-boot require.
 */
export const wipeDisk: Action<'wipe-disk'> = async (env, io, say) => {
  if (env.WIPE !== 'true') {
    say(WIPE_LINES.skipped(env.WIPE));
    return;
  }
  if (!env.INSTALL_DISK_SERIAL) throw new Refusal(WIPE_LINES.noSerial());
  if (!env.INSTALL_DISK) throw new Refusal(SHARED_LINES.noInstallDisk());
  const lacking = lackRefusal(env);
  if (lacking) throw new Refusal(lacking);
  if (!(await bootPassedAttestation(io))) throw new Refusal(WIPE_LINES.notAttested());
  if (!(await readInstallCode(io))) throw new Refusal(SHARED_LINES.noInstallCode());
  const disk = await locateDisk(io, env.INSTALL_DISK_SERIAL, env.INSTALL_DISK);
  const partitions = await partitionNodes(io, disk);
  say(WIPE_LINES.reportsSerial(env.INSTALL_DISK, env.INSTALL_DISK_SERIAL));
  await preflight(io, say, { installerImage: env.INSTALLER_IMAGE, imageUrl: env.IMAGE_URL, seedUrl: installsDiskImage(env) ? env.SEED_URL : '' });

  await erase(io, say, disk, env.INSTALL_DISK, partitions);
  const bootId = await readBootId(io);
  await writeWipedRecord(io, { bootId, disk: env.INSTALL_DISK, serial: env.INSTALL_DISK_SERIAL, at: new Date().toISOString() });
  say(WIPE_LINES.wiped(env.INSTALL_DISK, bootId));
};
