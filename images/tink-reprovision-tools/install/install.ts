import { confirmWipedDisk } from '../disk/locate.js';
import type { Action } from '../lib/action.js';
import { readInstallCode } from '../lib/fleet-dir.js';
import { Refusal } from '../lib/refusal.js';
import { installerArgs, installerTail } from './installer.js';

/**
 * install: runs the class's Talos installer against the disk wipe-disk wiped in this boot, with
 * talos.config at CONFIG_URL/<install code>. The code is never printed. An installer that fails
 * (as on a disk it finds not empty: the agent restarted mid-install) shows its last lines.
 */
export const install: Action<'install'> = async (env, io, say) => {
  if (env.INSTALL !== 'true') {
    say(`INSTALL is "${env.INSTALL}", not true: nothing installed (a retirement wipes only)`);
    return;
  }
  if (!env.INSTALL_DISK) throw new Refusal('no install disk is declared');
  if (!env.INSTALLER_IMAGE) throw new Refusal('no installer image is declared');
  if (!env.CONFIG_URL) throw new Refusal('no config URL is given');
  await confirmWipedDisk(io, env.INSTALL_DISK, 'nothing installed');
  const code = await readInstallCode(io);
  if (!code) throw new Refusal('no install code');

  say(`running the installer ${env.INSTALLER_IMAGE} on ${env.INSTALL_DISK}`);
  const r = await io.run('docker', installerArgs(env.INSTALLER_IMAGE, env.INSTALL_DISK, env.CONFIG_URL, code));
  if (r.code !== 0) {
    for (const line of installerTail(r.lines, code)) say(line);
    throw new Refusal('the installer failed; the lines above are its last output');
  }
  say(`installed Talos to ${env.INSTALL_DISK}`);
};
