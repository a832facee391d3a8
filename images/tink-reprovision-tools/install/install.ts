import { confirmWipedDisk } from '../disk/locate.js';
import type { Action } from '../lib/action.js';
import { readInstallCode } from '../lib/fleet-dir.js';
import { Refusal } from '../lib/refusal.js';
import { INSTALL_LINES } from '../lines/install.js';
import { NOTHING, SHARED_LINES } from '../lines/shared.js';
import { installerArgs, installerTail } from './installer.js';

/**
 * install: runs the class's Talos installer against the disk wipe-disk wiped in this boot, with
 * talos.config at CONFIG_URL/<install code>. The code is never printed. An installer that fails
 * (as on a disk it finds not empty: the agent restarted mid-install) shows its last lines.
 */
export const install: Action<'install'> = async (env, io, say) => {
  if (env.INSTALL !== 'true') {
    say(INSTALL_LINES.skipped(env.INSTALL));
    return;
  }
  if (!env.INSTALL_DISK) throw new Refusal(SHARED_LINES.noInstallDisk());
  if (!env.INSTALLER_IMAGE) throw new Refusal(INSTALL_LINES.noInstaller());
  if (!env.CONFIG_URL) throw new Refusal(INSTALL_LINES.noConfigUrl());
  await confirmWipedDisk(io, env.INSTALL_DISK, NOTHING.install);
  const code = await readInstallCode(io);
  if (!code) throw new Refusal(SHARED_LINES.noInstallCode());

  say(INSTALL_LINES.running(env.INSTALLER_IMAGE, env.INSTALL_DISK));
  const r = await io.run('docker', installerArgs(env.INSTALLER_IMAGE, env.INSTALL_DISK, env.CONFIG_URL, code));
  if (r.code !== 0) {
    for (const line of installerTail(r.lines, code)) say(INSTALL_LINES.installerSays(line));
    throw new Refusal(INSTALL_LINES.installerFailed());
  }
  say(INSTALL_LINES.installed(env.INSTALL_DISK));
};
